import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildFeedsDataset, writeFeedsFixture } from '../../test/helpers/feeds-pipeline.ts';
import { createTestStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createManualClock, DAY_MS } from '../core/clock.ts';
import { feedsDir, listFeedSnapshots } from '../feeds/index.ts';
import { createFeedSources, type FeedsWorker, startFeedsWorker } from './feeds.ts';

let handle: TestStoreHandle | null = null;
let worker: FeedsWorker | null = null;
afterEach(async () => {
  await worker?.stop();
  await handle?.cleanup();
  worker = null;
  handle = null;
});

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('feeds worker', () => {
  it('builds at start, retries skipped feeds on each tick, and builds again when the UTC day changes', async () => {
    handle = await createTestStore('sqlite');
    const { dataDir } = handle;
    const clock = createManualClock('2026-03-31T23:00:00Z');
    const sources = createFeedSources({ dataDir, store: handle.store });
    worker = startFeedsWorker({ dataDir, clock, sources, intervalMs: 20 });
    const dir = feedsDir(dataDir);
    // Start-up pass without a dataset: only trap_confirmed can be built.
    await until(
      async () => (await listFeedSnapshots(dir, 'trap_confirmed')).length === 1,
      'the start-up build',
    );
    expect(await listFeedSnapshots(dir, 'tor_exits')).toEqual([]);

    // A dataset appears mid-day: the next tick builds the skipped feeds for the same day.
    const from = path.join(dataDir, 'upstream');
    mkdirSync(from);
    writeFeedsFixture(from);
    await buildFeedsDataset(dataDir, from, clock);
    // Feeds are built in catalog order: asn_wide_blocked is the last one.
    await until(async () => (await listFeedSnapshots(dir, 'asn_wide_blocked')).length === 1, 'the retry');
    expect(await listFeedSnapshots(dir, 'tor_exits')).toEqual(['2026-03-31']);

    // Midnight UTC: the tick builds the new day without being asked.
    clock.advance(2 * 3_600_000);
    await until(async () => (await listFeedSnapshots(dir, 'asn_wide_blocked')).length === 2, 'the next day');
    expect(await listFeedSnapshots(dir, 'trap_confirmed')).toEqual(['2026-03-31', '2026-04-01']);

    // runOnce on a built day writes nothing new.
    const again = await worker.runOnce();
    expect(new Set(again.map((r) => r.status))).toEqual(new Set(['exists']));
  });

  it('stop() ends the schedule: a later day is not built', async () => {
    handle = await createTestStore('sqlite');
    const { dataDir } = handle;
    const clock = createManualClock('2026-05-01T10:00:00Z');
    worker = startFeedsWorker({
      dataDir,
      clock,
      sources: createFeedSources({ dataDir, store: handle.store }),
      intervalMs: 10,
    });
    const dir = feedsDir(dataDir);
    await until(
      async () => (await listFeedSnapshots(dir, 'trap_confirmed')).length === 1,
      'the start-up build',
    );
    await worker.stop();
    clock.advance(DAY_MS);
    await new Promise((r) => setTimeout(r, 80));
    expect(await listFeedSnapshots(dir, 'trap_confirmed')).toEqual(['2026-05-01']);
  });
});
