/**
 * Builds the day's feed snapshots (CONTRACT §9): at start when today's are missing, then
 * whenever the UTC day of the injected clock changes. A feed skipped for lack of data (no
 * dataset built yet) is retried on every tick until it is built.
 */
import type { Clock } from '../core/clock.ts';
import { utcDay } from '../core/clock.ts';
import { collectGarbage } from '../core/collect-garbage.ts';
import { hasFeedRows, listDatasetVersions, readFeedRows } from '../dataset/index.ts';
import {
  buildDailyFeeds,
  type FeedBuildResult,
  type FeedName,
  type FeedRowSources,
  feedsDir,
} from '../feeds/index.ts';
import { createReputationStore } from '../reputation/index.ts';
import type { Store } from '../store/index.ts';
import { schedule } from './schedule.ts';

/** Row sources of a running instance: the newest dataset snapshot with feed rows, and the store's trap evidence. */
export function createFeedSources(options: { dataDir: string; store: Store }): FeedRowSources {
  const reputation = createReputationStore(options.store);
  return {
    async dataset() {
      const versions = listDatasetVersions(options.dataDir);
      for (let i = versions.length - 1; i >= 0; i--) {
        const v = versions[i];
        if (v && hasFeedRows(v.dir)) return { version: v.version, rows: (feed) => readFeedRows(v.dir, feed) };
      }
      return null;
    },
    trapSources: (since, until) => reputation.pristineTrapSources(since, until),
  };
}

export interface FeedsWorkerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** What the builds of this process left out or failed, per feed (netrep_feed_* on /metrics). */
export interface FeedsWorkerCounts {
  skippedRows: ReadonlyMap<FeedName, number>;
  failedBuilds: ReadonlyMap<FeedName, number>;
}

export interface FeedsWorker {
  /** Builds today's missing snapshots now (tests call this after moving the clock). */
  runOnce(): Promise<FeedBuildResult[]>;
  counts(): FeedsWorkerCounts;
  stop(): Promise<void>;
}

export function startFeedsWorker(options: {
  /** NETREP_DATA_DIR: snapshots go to `<dataDir>/feeds`. */
  dataDir: string;
  clock: Clock;
  sources: FeedRowSources;
  intervalMs?: number;
  /** false: no timers (an API-only instance); runOnce still works. */
  scheduled?: boolean;
  logger?: FeedsWorkerLogger;
}): FeedsWorker {
  let running: Promise<FeedBuildResult[]> | null = null;
  /** The last day on which every feed was built: nothing to do until the day changes. */
  let doneDay: string | null = null;
  let stopped = false;
  const skippedRows = new Map<FeedName, number>();
  const failedBuilds = new Map<FeedName, number>();
  const add = (m: Map<FeedName, number>, feed: FeedName, n: number) => m.set(feed, (m.get(feed) ?? 0) + n);

  const runOnce = async (): Promise<FeedBuildResult[]> => {
    while (running) await running.catch(() => []);
    const day = utcDay(options.clock());
    running = buildDailyFeeds({
      dir: feedsDir(options.dataDir),
      clock: options.clock,
      sources: options.sources,
      onSkippedRow: (feed, reason) => {
        add(skippedRows, feed, 1);
        options.logger?.warn({ feed, reason }, 'feed row skipped: not a valid feed row');
      },
    })
      .then((results) => {
        // A feed not built yet (no data, or a failure) is retried on the next tick.
        if (results.every((r) => r.status !== 'skipped' && r.status !== 'failed')) doneDay = day;
        // A build reads every row of the snapshot's feed files and sorts them: hundreds of MB of
        // garbage that V8 would otherwise keep resident in an idle server (core/collect-garbage.ts).
        if (results.some((r) => r.status === 'created')) collectGarbage();
        for (const r of results) {
          if (r.status === 'created')
            options.logger?.info(
              { feed: r.feed, date: r.date, rows: r.rowCount, skipped_rows: r.skippedRows },
              'feed snapshot built',
            );
          if (r.status === 'failed') {
            add(failedBuilds, r.feed, 1);
            options.logger?.warn(
              { feed: r.feed, date: r.date, reason: r.reason },
              'feed snapshot build failed',
            );
          }
        }
        return results;
      })
      .finally(() => {
        running = null;
      });
    return await running;
  };
  const tick = () => {
    if (stopped || running || utcDay(options.clock()) === doneDay) return;
    runOnce().catch((err: unknown) => options.logger?.warn({ err }, 'feed snapshot build failed'));
  };
  // At start (off the caller's path): build today's snapshots if they are missing.
  const timer = schedule(tick, {
    intervalMs: options.intervalMs ?? 60_000,
    firstDelayMs: 0,
    enabled: options.scheduled,
  });
  return {
    runOnce,
    counts: () => ({ skippedRows, failedBuilds }),
    async stop() {
      stopped = true;
      timer.cancel();
      await running?.catch(() => []);
    },
  };
}
