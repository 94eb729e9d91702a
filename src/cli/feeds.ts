/** `netrep feeds build` (CONTRACT §0b, §9): builds today's missing feed snapshots now, as the server does daily. */
import type { Command } from 'commander';
import { systemClock } from '../core/clock.ts';
import {
  buildDailyFeeds,
  FEED_NAMES,
  type FeedBuildResult,
  type FeedName,
  feedsDir,
  isFeedName,
} from '../feeds/index.ts';
import { createFeedSources } from '../worker/feeds.ts';
import { fail, withContext } from './context.ts';

export function registerFeedsCommands(program: Command): void {
  const feeds = program.command('feeds').description('threat feed snapshots');
  feeds
    .command('build')
    .description(
      "build today's (UTC) snapshot of each feed that has none yet; existing days are never rewritten",
    )
    .option('--feed <name...>', `only these feeds (${FEED_NAMES.join(', ')})`)
    .action(async (opts: { feed?: string[] }) => {
      const wanted = opts.feed ?? [...FEED_NAMES];
      const unknown = wanted.filter((f) => !isFeedName(f));
      if (unknown.length > 0) fail(`unknown feed ${unknown.join(', ')}; feeds: ${FEED_NAMES.join(', ')}`);
      await withContext(async ({ config, store }) => {
        const results = await buildDailyFeeds({
          dir: feedsDir(config.dataDir),
          clock: systemClock,
          sources: createFeedSources({ dataDir: config.dataDir, store }),
          feeds: wanted as FeedName[],
          onSkippedRow: (feed, reason) => process.stderr.write(`${feed}: row skipped: ${reason}\n`),
        });
        for (const r of results) process.stdout.write(formatFeedResult(r));
        const code = feedsExitCode(results);
        if (code !== 0) process.exitCode = code;
      });
    });
}

/** One result as a tab-separated line: feed, date, status, then the rows and hash or the reason. */
export function formatFeedResult(r: FeedBuildResult): string {
  let detail =
    r.status === 'skipped' || r.status === 'failed' ? r.reason : `${r.rowCount} rows sha256 ${r.sha256}`;
  if (r.skippedRows > 0) detail += ` (${r.skippedRows} invalid source rows skipped)`;
  return `${r.feed}\t${r.date}\t${r.status}\t${detail}\n`;
}

/** 1: a feed failed (the others were built); 2: a feed has no source data yet; else 0. */
export function feedsExitCode(results: readonly FeedBuildResult[]): number {
  if (results.some((r) => r.status === 'failed')) return 1;
  if (results.some((r) => r.status === 'skipped')) return 2;
  return 0;
}
