/**
 * The daily build: one snapshot per feed per UTC day, from the rows its sources give on that
 * day. A day that already has a snapshot is left untouched (snapshots are immutable).
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
  /** created: written now; exists: the day already had a snapshot; skipped: no source data yet. */
  status: 'created' | 'exists' | 'skipped';
  rowCount: number | null;
  sha256: string | null;
  reason: string | null;
}

/** `<dataDir>/feeds`: where snapshots live. */
export function feedsDir(dataDir: string): string {
  return path.join(dataDir, 'feeds');
}

export function trapRows(sources: readonly TrapSource[]): FeedRow[] {
  return sources.map((s) => ({
    network: s.ip,
    kind: 'pristine_trap',
    source: s.source ?? TRAP_SOURCE,
    first_seen: toIso(s.firstSeen),
    last_seen: toIso(s.lastSeen),
  }));
}

/** Builds today's (UTC, from `clock`) snapshot of each feed that lacks one. */
export async function buildDailyFeeds(options: {
  dir: string;
  clock: Clock;
  sources: FeedRowSources;
  feeds?: readonly FeedName[];
}): Promise<FeedBuildResult[]> {
  const now = options.clock();
  const date = utcDay(now);
  const results: FeedBuildResult[] = [];
  let dataset: Awaited<ReturnType<FeedRowSources['dataset']>> | undefined;
  for (const feed of options.feeds ?? FEED_NAMES) {
    const existing = await readFeedManifest(options.dir, feed, date);
    if (existing) {
      results.push({
        feed,
        date,
        status: 'exists',
        rowCount: existing.row_count,
        sha256: existing.sha256,
        reason: null,
      });
      continue;
    }
    if (dataset === undefined) dataset = await options.sources.dataset();
    let rows: Iterable<FeedRow> | AsyncIterable<FeedRow>;
    if (feed === 'trap_confirmed') {
      rows = trapRows(await options.sources.trapSources(now - TRAP_WINDOW_MS, now));
    } else if (dataset) {
      rows = dataset.rows(feed);
    } else {
      results.push({
        feed,
        date,
        status: 'skipped',
        rowCount: null,
        sha256: null,
        reason: 'no dataset snapshot with feed rows yet (run `netrep dataset build`)',
      });
      continue;
    }
    const { manifest, created } = await writeFeedSnapshot({
      dir: options.dir,
      feed,
      date,
      rows,
      generatedAt: toIso(now),
      datasetVersion: dataset?.version ?? 0,
    });
    results.push({
      feed,
      date,
      status: created ? 'created' : 'exists',
      rowCount: manifest.row_count,
      sha256: manifest.sha256,
      reason: null,
    });
  }
  return results;
}
