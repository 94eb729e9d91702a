/**
 * The daily build: one snapshot per feed per UTC day, from the rows its sources give on that
 * day. A day that already has a snapshot is left untouched (snapshots are immutable). A row that
 * is not a valid feed row is skipped and counted (`skippedRows`, `onSkippedRow`), and a feed
 * whose build fails is reported `failed` while the feeds after it are still built.
 */
import path from 'node:path';
import { type Clock, DAY_MS, toIso, utcDay } from '../core/clock.ts';
import { readFeedManifest, writeFeedSnapshot } from './snapshot.ts';
import { FEED_NAMES, type FeedName, type FeedRow } from './types.ts';

/** The feeds whose rows come from the dataset snapshot; trap_confirmed comes from the store. */
export type DatasetFeedName = Exclude<FeedName, 'trap_confirmed'>;

/** An address confirmed by production pristine trap hits. */
export interface TrapSource {
  ip: string;
  firstSeen: number;
  lastSeen: number;
  source: string | null;
}

export interface FeedRowSources {
  /** The dataset snapshot the dataset feeds are built from; null while none carries feed rows. */
  dataset(): Promise<{ version: number; rows(feed: DatasetFeedName): AsyncIterable<FeedRow> } | null>;
  /** Addresses with production pristine trap hits observed in [since, until]. */
  trapSources(since: number, until: number): Promise<readonly TrapSource[]>;
}

/** trap_confirmed lists addresses with a pristine trap hit in the last 30 days (the scoring window). */
export const TRAP_WINDOW_MS = 30 * DAY_MS;
const TRAP_SOURCE = 'netrep-pristine-trap';

export interface FeedBuildResult {
  feed: FeedName;
  date: string;
  /**
   * created: written now; exists: the day already had a snapshot; skipped: no source data yet;
   * failed: the build of this feed failed (`reason`; nothing was published, the next run retries).
   */
  status: 'created' | 'exists' | 'skipped' | 'failed';
  rowCount: number | null;
  sha256: string | null;
  reason: string | null;
  /** Source rows left out because they are not valid feed rows (0 unless created). */
  skippedRows: number;
}

/** `<dataDir>/feeds`: where snapshots live. */
export function feedsDir(dataDir: string): string {
  return path.join(dataDir, 'feeds');
}

export function trapRows(sources: readonly TrapSource[]): FeedRow[] {
  return sources.map((s) => ({
    network: s.ip,
    kind: 'pristine_trap',
    // An empty source is none (the row schema needs at least one character).
    source: s.source || TRAP_SOURCE,
    first_seen: toIso(s.firstSeen),
    last_seen: toIso(s.lastSeen),
  }));
}

/** What the build of one feed needs: the day, the sources, the dataset once read. */
interface FeedBuildContext {
  dir: string;
  now: number;
  date: string;
  sources: FeedRowSources;
  onSkippedRow?: (feed: FeedName, reason: string) => void;
  /** The dataset snapshot, read by the first feed that needs it (undefined: not read yet). */
  dataset?: Awaited<ReturnType<FeedRowSources['dataset']>>;
}

function result(
  feed: FeedName,
  date: string,
  status: FeedBuildResult['status'],
  fields: Partial<Pick<FeedBuildResult, 'rowCount' | 'sha256' | 'reason' | 'skippedRows'>> = {},
): FeedBuildResult {
  return { feed, date, status, rowCount: null, sha256: null, reason: null, skippedRows: 0, ...fields };
}

/** The dataset snapshot, read once per build; trap_confirmed is built without it when it fails. */
async function datasetFor(ctx: FeedBuildContext, feed: FeedName): Promise<FeedBuildContext['dataset']> {
  if (ctx.dataset !== undefined) return ctx.dataset;
  try {
    ctx.dataset = await ctx.sources.dataset();
  } catch (err) {
    // trap_confirmed does not need the dataset: it is built without it (dataset_version 0).
    if (feed !== 'trap_confirmed') throw err;
  }
  return ctx.dataset;
}

/** The rows of a feed, or null when its source has no data yet (no dataset snapshot with feed rows). */
async function rowsOf(
  ctx: FeedBuildContext,
  feed: FeedName,
): Promise<Iterable<FeedRow> | AsyncIterable<FeedRow> | null> {
  if (feed === 'trap_confirmed')
    return trapRows(await ctx.sources.trapSources(ctx.now - TRAP_WINDOW_MS, ctx.now));
  return ctx.dataset ? ctx.dataset.rows(feed) : null;
}

async function buildOne(ctx: FeedBuildContext, feed: FeedName): Promise<FeedBuildResult> {
  const { date } = ctx;
  const existing = await readFeedManifest(ctx.dir, feed, date);
  if (existing)
    return result(feed, date, 'exists', { rowCount: existing.row_count, sha256: existing.sha256 });
  const dataset = await datasetFor(ctx, feed);
  const rows = await rowsOf(ctx, feed);
  if (!rows)
    return result(feed, date, 'skipped', {
      reason: 'no dataset snapshot with feed rows yet (run `netrep dataset build`)',
    });
  let skippedRows = 0;
  const { manifest, created } = await writeFeedSnapshot({
    dir: ctx.dir,
    feed,
    date,
    rows,
    generatedAt: toIso(ctx.now),
    datasetVersion: dataset?.version ?? 0,
    onInvalidRow: (reason) => {
      skippedRows++;
      ctx.onSkippedRow?.(feed, reason);
    },
  });
  return result(feed, date, created ? 'created' : 'exists', {
    rowCount: manifest.row_count,
    sha256: manifest.sha256,
    skippedRows: created ? skippedRows : 0,
  });
}

/** Builds today's (UTC, from `clock`) snapshot of each feed that lacks one. */
export async function buildDailyFeeds(options: {
  dir: string;
  clock: Clock;
  sources: FeedRowSources;
  feeds?: readonly FeedName[];
  /** Called for each skipped row: the feed and why (the schema path and rule the row broke). */
  onSkippedRow?: (feed: FeedName, reason: string) => void;
}): Promise<FeedBuildResult[]> {
  const now = options.clock();
  const date = utcDay(now);
  const ctx: FeedBuildContext = { dir: options.dir, now, date, sources: options.sources };
  if (options.onSkippedRow) ctx.onSkippedRow = options.onSkippedRow;
  const results: FeedBuildResult[] = [];
  for (const feed of options.feeds ?? FEED_NAMES) {
    try {
      results.push(await buildOne(ctx, feed));
    } catch (err) {
      // One feed's failure (its source, a disk error) does not stop the feeds after it.
      const reason = err instanceof Error ? err.message : String(err);
      results.push(result(feed, date, 'failed', { reason }));
    }
  }
  return results;
}
