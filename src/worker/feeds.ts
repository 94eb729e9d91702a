/**
 * Builds the day's feed snapshots (CONTRACT §9): at start when today's are missing, then
 * whenever the UTC day of the injected clock changes. A feed skipped for lack of data (no
 * dataset built yet) is retried on every tick until it is built.
 */
import type { Clock } from '../core/clock.ts';
import { utcDay } from '../core/clock.ts';
import { collectGarbage } from '../core/collect-garbage.ts';
import type { FeedBuildResult, FeedName, FeedRowSources } from '../feeds/index.ts';
import { createReputationStore } from '../reputation/index.ts';
import type { Store } from '../store/index.ts';
import type { FeedsBuildRunner } from './feeds-build-process.ts';
import { newestFeedDataset } from './feeds-dataset.ts';
import { buildFeedsDay } from './feeds-day-build.ts';
import { schedule } from './schedule.ts';

/** Row sources of a running instance: the newest dataset snapshot with feed rows, and the store's trap evidence. */
export function createFeedSources(options: { dataDir: string; store: Store }): FeedRowSources {
  const reputation = createReputationStore(options.store);
  return {
    dataset: newestFeedDataset(options.dataDir),
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

function addOne(m: Map<FeedName, number>, feed: FeedName): void {
  m.set(feed, (m.get(feed) ?? 0) + 1);
}

/** A build's result in the log (built, failed), a failure counted in `failedBuilds`. */
function logResult(
  r: FeedBuildResult,
  logger: FeedsWorkerLogger | undefined,
  failedBuilds: Map<FeedName, number>,
): void {
  if (r.status === 'created')
    logger?.info(
      { feed: r.feed, date: r.date, rows: r.rowCount, skipped_rows: r.skippedRows },
      'feed snapshot built',
    );
  if (r.status === 'failed') {
    addOne(failedBuilds, r.feed);
    logger?.warn({ feed: r.feed, date: r.date, reason: r.reason }, 'feed snapshot build failed');
  }
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
  /**
   * Builds the missing dataset feeds elsewhere (a child process, feeds-build-process.ts), so the
   * build's garbage never lives in this process; the trap feed, read from the store, is built
   * here. Unset: everything here.
   */
  datasetFeedsRunner?: FeedsBuildRunner;
}): FeedsWorker {
  let running: Promise<FeedBuildResult[]> | null = null;
  /** The last day on which every feed was built: nothing to do until the day changes. */
  let doneDay: string | null = null;
  let stopped = false;
  const skippedRows = new Map<FeedName, number>();
  const failedBuilds = new Map<FeedName, number>();
  const onSkippedRow = (feed: FeedName, reason: string) => {
    addOne(skippedRows, feed);
    options.logger?.warn({ feed, reason }, 'feed row skipped: not a valid feed row');
  };

  const runOnce = async (): Promise<FeedBuildResult[]> => {
    while (running) await running.catch(() => []);
    const day = utcDay(options.clock());
    running = buildFeedsDay({ ...options, onSkippedRow })
      .then(({ results, builtHere }) => {
        // A feed not built yet (no data, or a failure) is retried on the next tick.
        if (results.every((r) => r.status !== 'skipped' && r.status !== 'failed')) doneDay = day;
        // A build reads every row of the snapshot's feed files and sorts them: hundreds of MB of
        // garbage that V8 would otherwise keep resident in an idle server (core/collect-garbage.ts).
        if (builtHere.some((r) => r.status === 'created')) collectGarbage();
        for (const r of results) logResult(r, options.logger, failedBuilds);
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
