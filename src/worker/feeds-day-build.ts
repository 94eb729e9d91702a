/**
 * One build of the day's missing feed snapshots for the feeds worker (feeds.ts): the dataset
 * feeds in a build child when a runner is given (feeds-build-process.ts), the trap feed, read
 * from the store, here; without a runner or a dataset with feed rows, everything here.
 */
import type { Clock } from '../core/clock.ts';
import { utcDay } from '../core/clock.ts';
import {
  buildDailyFeeds,
  FEED_NAMES,
  type FeedBuildResult,
  type FeedName,
  type FeedRowSources,
  feedsDir,
  readFeedManifest,
} from '../feeds/index.ts';
import type { FeedsBuildRunner } from './feeds-build-process.ts';

export interface FeedsDayBuildOptions {
  dataDir: string;
  clock: Clock;
  sources: FeedRowSources;
  datasetFeedsRunner?: FeedsBuildRunner;
  onSkippedRow: (feed: FeedName, reason: string) => void;
}

/** Today's results in catalog order; `builtHere`: the results of this process's own build. */
export interface FeedsDayBuild {
  results: FeedBuildResult[];
  builtHere: FeedBuildResult[];
}

/** The child as a whole failed: each of its feeds failed, and is retried next time. */
function failedInChild(feeds: readonly FeedName[], date: string, err: unknown): FeedBuildResult[] {
  return feeds.map((feed) => ({
    feed,
    date,
    status: 'failed',
    rowCount: null,
    sha256: null,
    reason: (err as Error).message,
    skippedRows: 0,
  }));
}

/** The dataset feeds without a snapshot for `date`: the ones a child builds. */
async function missingDatasetFeeds(dir: string, date: string): Promise<FeedName[]> {
  const missing: FeedName[] = [];
  for (const feed of FEED_NAMES) {
    if (feed !== 'trap_confirmed' && !(await readFeedManifest(dir, feed, date))) missing.push(feed);
  }
  return missing;
}

export async function buildFeedsDay(options: FeedsDayBuildOptions): Promise<FeedsDayBuild> {
  const dir = feedsDir(options.dataDir);
  const { sources, onSkippedRow } = options;
  // Without a dataset with feed rows there is nothing to build elsewhere (skipped here at once).
  const runner = (await sources.dataset().catch(() => null)) ? options.datasetFeedsRunner : undefined;
  if (!runner) {
    const results = await buildDailyFeeds({ dir, clock: options.clock, sources, onSkippedRow });
    return { results, builtHere: results };
  }
  const now = options.clock();
  const date = utcDay(now);
  const elsewhere = await missingDatasetFeeds(dir, date);
  const [outside, here] = await Promise.all([
    elsewhere.length === 0
      ? []
      : runner({ dataDir: options.dataDir, now, feeds: elsewhere, onSkippedRow }).catch((err: unknown) =>
          failedInChild(elsewhere, date, err),
        ),
    buildDailyFeeds({
      dir,
      clock: () => now,
      sources,
      feeds: FEED_NAMES.filter((f) => !elsewhere.includes(f)),
      onSkippedRow,
    }),
  ]);
  const byFeed = new Map([...outside, ...here].map((r) => [r.feed, r]));
  return { results: FEED_NAMES.flatMap((f) => byFeed.get(f) ?? []), builtHere: here };
}
