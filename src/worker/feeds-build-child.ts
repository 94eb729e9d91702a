/**
 * The child process of a feed build (feeds-build-process.ts): builds the day's snapshots of the
 * dataset feeds named in its argument from the newest dataset snapshot of the data dir, and
 * prints one JSON object per line on stdout: `{"skipped":{"feed","reason"}}` for each source row
 * left out, then `{"results":[…]}`. It reads no store (the trap feed is built by the serving
 * process). The build reads every feed row of the snapshot and sorts them: run here, its hundreds
 * of MB of garbage (and the young generation it grows) go when the child exits, instead of
 * staying resident in the serving process (issue 18: 354 MB idle with the full dataset against
 * 296 MB without the build).
 */
import { buildDailyFeeds, type FeedName, feedsDir } from '../feeds/index.ts';
import { newestFeedDataset } from './feeds-dataset.ts';

interface ChildArgs {
  dataDir: string;
  /** The parent's clock: the snapshots' day and generated_at. */
  now: number;
  feeds: FeedName[];
}

const args = JSON.parse(process.argv[2] ?? '{}') as ChildArgs;
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
try {
  const results = await buildDailyFeeds({
    dir: feedsDir(args.dataDir),
    clock: () => args.now,
    sources: {
      dataset: newestFeedDataset(args.dataDir),
      trapSources: () => Promise.reject(new Error('the trap feed is built by the serving process')),
    },
    feeds: args.feeds,
    onSkippedRow: (feed, reason) => say({ skipped: { feed, reason } }),
  });
  say({ results });
} catch (err) {
  process.stderr.write(`feed build failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
}
