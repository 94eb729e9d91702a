/**
 * createReputation on real stores, below HTTP: a read that outlives the deadline (a table
 * locked by another PostgreSQL session) is unavailable evidence, and a failing blocklist is
 * never read as "not listed".
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_POSTGRES_URL } from '../../test/helpers/backends.ts';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createBlocklist } from '../blocklist/index.ts';
import { createManualClock } from '../core/clock.ts';
import { createTelemetry } from '../telemetry/index.ts';
import { createReputation, type Reputation } from './reputation.ts';
import { type ListingFacts, unknownIntel } from './sources.ts';

const built: Reputation[] = [];

function build(handle: TestStoreHandle, listings?: ListingFacts) {
  const clock = createManualClock('2026-06-15T12:00:00Z');
  const blocklist = createBlocklist({ store: handle.store, clock });
  const facts: ListingFacts = listings ?? {
    activeListing: async (ip) => (await blocklist.check(ip))?.type ?? null,
    activeCountInSubnet24: (ip) => blocklist.activeCountInSubnet24(ip),
    listedEventsSince: (ip, since) => blocklist.listedEventTimes(ip, since),
  };
  const reputation = createReputation({
    store: handle.store,
    clock,
    telemetry: createTelemetry({ store: handle.store, clock }),
    listings: facts,
    intel: unknownIntel,
    evidenceTimeoutMs: 300,
  });
  built.push(reputation);
  return reputation;
}

describe.each(STORE_KINDS)('createReputation (%s)', (kind) => {
  const skip = skipStore(kind);
  let handle: TestStoreHandle | undefined;
  afterEach(async () => {
    // Queued computations are written before the store goes.
    for (const r of built.splice(0)) await r.close().catch(() => undefined);
    await handle?.cleanup();
    handle = undefined;
  });

  it.skipIf(skip)('a failing blocklist is unavailable evidence, not "not listed"', async () => {
    handle = await createTestStore(kind);
    const broken: ListingFacts = {
      activeListing: async () => {
        throw new Error('blocklist store is gone');
      },
      activeCountInSubnet24: async () => 0,
      listedEventsSince: async () => [],
    };
    await expect(build(handle, broken).assess('45.33.70.1')).rejects.toMatchObject({
      code: 'EVIDENCE_UNAVAILABLE',
    });
    const ok = await build(handle).assess('45.33.70.1');
    expect(ok.score).toBe(60);
  });

  it.skipIf(skip || kind !== 'postgres')(
    'a read past the deadline (locked table) answers 503 in time',
    async () => {
      handle = await createTestStore(kind);
      const reputation = build(handle);
      const locker = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await locker.connect();
      try {
        await locker.query('begin');
        // The raw rows and the rollups the answer reads (issue 18) are both locked.
        await locker.query(
          `lock table ${handle.pgSchema}.reputation_evidence, ${handle.pgSchema}.reputation_evidence_days in access exclusive mode`,
        );
        const started = Date.now();
        await expect(reputation.forIp('45.33.71.1')).rejects.toMatchObject({ code: 'EVIDENCE_UNAVAILABLE' });
        expect(Date.now() - started).toBeLessThan(3000);
        await locker.query('rollback');
        expect((await reputation.forIp('45.33.71.1')).score).toBe(60);
      } finally {
        await locker.end();
      }
    },
  );
});
