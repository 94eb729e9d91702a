import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildFeedsDataset, writeFeedsFixture } from '../../test/helpers/feeds-pipeline.ts';
import { createTestStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createManualClock, DAY_MS } from '../core/clock.ts';
import { FEED_NAMES, type FeedName, feedsDir, listFeedSnapshots } from '../feeds/index.ts';
import { createFeedSources, type FeedsWorker, startFeedsWorker } from './feeds.ts';
import { createChildFeedsRunner, type FeedsBuildRunner } from './feeds-build-process.ts';

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

describe('feeds worker with the dataset feeds built in a child process', () => {
  it('builds them there and the trap feed here; a failed child fails only its feeds, retried next run', async () => {
    handle = await createTestStore('sqlite');
    const { dataDir } = handle;
    const clock = createManualClock('2026-03-31T12:00:00Z');
    const from = path.join(dataDir, 'upstream');
    mkdirSync(from);
    writeFeedsFixture(from);
    await buildFeedsDataset(dataDir, from, clock);
    const sources = createFeedSources({ dataDir, store: handle.store });
    const dir = feedsDir(dataDir);
    const datasetFeeds = FEED_NAMES.filter((f) => f !== 'trap_confirmed');

    // A child that cannot run: every dataset feed fails with the reason; the trap feed is still
    // built here.
    const broken: FeedsBuildRunner = () => Promise.reject(new Error('feed build failed: no such program'));
    worker = startFeedsWorker({ dataDir, clock, sources, scheduled: false, datasetFeedsRunner: broken });
    const failed = await worker.runOnce();
    expect(failed.map((r) => [r.feed, r.status])).toEqual(
      FEED_NAMES.map((f) => [f, f === 'trap_confirmed' ? 'created' : 'failed']),
    );
    expect(failed.find((r) => r.feed === 'tor_exits')?.reason).toBe('feed build failed: no such program');
    expect(worker.counts().failedBuilds.get('tor_exits')).toBe(1);
    await worker.stop();

    // The real child: the missing feeds are built there, what exists is left alone.
    const asked: FeedName[][] = [];
    const child = createChildFeedsRunner();
    worker = startFeedsWorker({
      dataDir,
      clock,
      sources,
      scheduled: false,
      datasetFeedsRunner: (request) => {
        asked.push(request.feeds);
        return child(request);
      },
    });
    const built = await worker.runOnce();
    expect(asked).toEqual([datasetFeeds]);
    expect(built.map((r) => [r.feed, r.status])).toEqual(
      FEED_NAMES.map((f) => [f, f === 'trap_confirmed' ? 'exists' : 'created']),
    );
    expect(built.every((r) => r.status !== 'created' || (r.rowCount ?? 0) > 0)).toBe(true);
    for (const feed of datasetFeeds) expect(await listFeedSnapshots(dir, feed)).toEqual(['2026-03-31']);
    // Nothing missing: no child at all.
    expect(new Set((await worker.runOnce()).map((r) => r.status))).toEqual(new Set(['exists']));
    expect(asked).toHaveLength(1);
  });

  it('a child that does not finish in time is killed, and its build rejected with the reason', async () => {
    handle = await createTestStore('sqlite');
    const run = createChildFeedsRunner({ timeoutMs: 50 });
    await expect(
      run({ dataDir: handle.dataDir, now: Date.now(), feeds: ['tor_exits'], onSkippedRow: () => {} }),
    ).rejects.toThrow('feed build failed: timed out after 0 s');
  });
});
