import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createBlocklist } from '../blocklist/index.ts';
import { createManualClock, DAY_MS, type ManualClock } from '../core/clock.ts';
import type { Store } from '../store/index.ts';
import { createTelemetry } from '../telemetry/index.ts';
import { createReputation, type Reputation } from './reputation.ts';
import { listingFactsOf, unknownIntel } from './sources.ts';
import type { ComputationRecord } from './store-types.ts';
import { createWriteBehind, overlayMembers, overlayPoints } from './write-behind.ts';

const at = (ip: string, score: number, computedAt: number, subnet: string | null = '45.1.2.0/24') =>
  ({ ip, subnet, score, level: 'poor', computedAt }) satisfies ComputationRecord;

describe('write-behind queue', () => {
  it('keeps the later computation of an address and day, and reads it until written', async () => {
    const saved: ComputationRecord[][] = [];
    const w = createWriteBehind({ save: async (list) => void saved.push([...list]), flushMs: 60_000 });
    expect(w.queue([at('45.1.2.3', 40, 1000), at('45.1.2.4', 70, 1000)])).toBeUndefined();
    w.queue([at('45.1.2.3', 45, 900)]); // older: ignored
    w.queue([at('45.1.2.3', 50, 2000)]);
    expect(w.pointsOf('45.1.2.3')).toEqual([at('45.1.2.3', 50, 2000)]);
    expect(w.latestIn('45.1.2.0/24')).toEqual([
      { ip: '45.1.2.3', score: 50, computedAt: 2000 },
      { ip: '45.1.2.4', score: 70, computedAt: 1000 },
    ]);
    expect(saved).toEqual([]);
    await w.flush();
    expect(saved).toEqual([[at('45.1.2.3', 50, 2000), at('45.1.2.4', 70, 1000)]]);
    expect(w.pointsOf('45.1.2.3')).toEqual([]);
    expect(w.latestIn('45.1.2.0/24')).toEqual([]);
    await w.close();
  });

  it('writes one save per UTC day, so no save holds an address twice', async () => {
    const saved: ComputationRecord[][] = [];
    const w = createWriteBehind({ save: async (list) => void saved.push([...list]), flushMs: 60_000 });
    w.queue([at('45.1.2.3', 50, DAY_MS + 5), at('45.1.2.3', 40, DAY_MS - 5), at('45.1.2.9', 60, DAY_MS - 1)]);
    expect(w.pointsOf('45.1.2.3')).toHaveLength(2);
    expect(w.latestIn('45.1.2.0/24')).toContainEqual({ ip: '45.1.2.3', score: 50, computedAt: DAY_MS + 5 });
    await w.close();
    expect(saved).toEqual([
      [at('45.1.2.3', 40, DAY_MS - 5), at('45.1.2.9', 60, DAY_MS - 1)],
      [at('45.1.2.3', 50, DAY_MS + 5)],
    ]);
  });

  it('a failed write keeps its computations readable and queued; the next write takes them', async () => {
    let fail = true;
    const errors: unknown[] = [];
    const saved: ComputationRecord[] = [];
    const w = createWriteBehind({
      save: async (list) => {
        if (fail) throw new Error('store down');
        saved.push(...list);
      },
      flushMs: 5,
      onError: (err) => errors.push(err),
    });
    w.queue([at('45.1.2.3', 40, 1000)]);
    await expect(w.flush()).rejects.toThrow('store down');
    expect(errors).toHaveLength(1);
    // Queued meanwhile: newer for one address, another address.
    w.queue([at('45.1.2.3', 41, 1001), at('45.1.2.5', 80, 1000)]);
    expect(w.pointsOf('45.1.2.3')).toEqual([at('45.1.2.3', 41, 1001)]);
    fail = false;
    // The timer tries again by itself.
    await expect.poll(() => saved.length, { timeout: 2000 }).toBe(2);
    expect(saved).toEqual([at('45.1.2.3', 41, 1001), at('45.1.2.5', 80, 1000)]);
    await w.close();
  });

  it('close reports a failed last write and does not throw (the shutdown goes on)', async () => {
    const errors: unknown[] = [];
    const w = createWriteBehind({
      save: async () => {
        throw new Error('store closing');
      },
      flushMs: 60_000,
      onError: (err) => errors.push(err),
    });
    w.queue([at('45.1.2.3', 40, 1)]);
    await expect(w.close()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
  });

  it('a full queue makes the caller wait for a write; after close every queue writes at once', async () => {
    const saved: ComputationRecord[] = [];
    const w = createWriteBehind({
      save: async (list) => void saved.push(...list),
      flushMs: 60_000,
      maxPending: 2,
    });
    expect(w.queue([at('45.1.2.3', 40, 1)])).toBeUndefined();
    const full = w.queue([at('45.1.2.4', 40, 1)]);
    expect(full).toBeInstanceOf(Promise);
    await full;
    expect(saved).toHaveLength(2);
    await w.close();
    await w.queue([at('45.1.2.5', 40, 1)]);
    expect(saved).toHaveLength(3);
  });

  it('overlays: per day (or per address) the later computation, a queued one on equal times', () => {
    const stored = [
      { score: 10, computedAt: 5 },
      { score: 20, computedAt: DAY_MS + 5 },
    ];
    expect(overlayPoints(stored, [at('x', 30, DAY_MS + 5), at('x', 40, 2 * DAY_MS)])).toEqual([
      { score: 10, computedAt: 5 },
      { score: 30, computedAt: DAY_MS + 5 },
      { score: 40, computedAt: 2 * DAY_MS },
    ]);
    expect(overlayPoints(stored, [at('x', 30, DAY_MS + 4)])).toEqual(stored);
    const members = new Map([['a', { ip: 'a', score: 1, computedAt: 10 }]]);
    expect([
      ...overlayMembers(members, [
        { ip: 'a', score: 2, computedAt: 9 },
        { ip: 'b', score: 3, computedAt: 1 },
      ]).values(),
    ]).toEqual([
      { ip: 'a', score: 1, computedAt: 10 },
      { ip: 'b', score: 3, computedAt: 1 },
    ]);
  });
});

describe.each(STORE_KINDS)('computations written behind the answers (%s)', (kind) => {
  const skip = skipStore(kind);
  let handle: TestStoreHandle | undefined;
  const made: Reputation[] = [];
  afterEach(async () => {
    for (const r of made.splice(0)) await r.close();
    await handle?.cleanup();
    handle = undefined;
  });
  const instance = (store: Store, clock: ManualClock) => {
    const r = createReputation({
      store,
      clock,
      telemetry: createTelemetry({ store, clock }),
      listings: listingFactsOf(createBlocklist({ store, clock })),
      intel: unknownIntel,
      writeBehindMs: 60_000,
    });
    made.push(r);
    return r;
  };

  it.skipIf(skip)(
    'answers across midnight: the writer sees both at once, another instance once written',
    async () => {
      handle = await createTestStore(kind);
      const clock = createManualClock('2026-06-15T23:59:59.999Z');
      const a = instance(handle.store, clock);
      const b = instance(handle.reopen(), clock);
      const ip = '45.1.2.3';
      await a.forIp('45.1.2.4');
      await a.forIp(ip);
      clock.advance(2);
      const mine = await a.forIp(ip);
      expect(mine.history.map((p) => p.computed_at)).toEqual([
        '2026-06-15T23:59:59.999Z',
        '2026-06-16T00:00:00.001Z',
      ]);
      expect(mine.subnet?.total_ips_seen).toBe(2);
      // Not written yet: the other instance knows nothing of them.
      expect((await b.neighbors(ip)).total_ips_seen).toBe(0);
      await a.flush();
      // Written (both days of one address in one flush): the other instance reads them.
      expect((await b.neighbors(ip)).total_ips_seen).toBe(2);
      const theirs = await b.forIp(ip);
      expect(theirs.history).toEqual(mine.history);
      expect(theirs.subnet).toEqual(mine.subnet);
    },
  );

  it.skipIf(skip)('close writes what is queued', async () => {
    handle = await createTestStore(kind);
    const clock = createManualClock('2026-06-15T12:00:00Z');
    const a = instance(handle.store, clock);
    await a.forIp('45.1.2.3');
    await a.close();
    const b = instance(handle.reopen(), clock);
    expect((await b.neighbors('45.1.2.3')).total_ips_seen).toBe(1);
  });
});
