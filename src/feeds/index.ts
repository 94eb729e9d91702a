import { buildCatalog } from './catalog.ts';
import { readFeedManifest } from './snapshot.ts';
import { FEED_NAMES, type FeedCatalog, type FeedManifest, type FeedName, type KeyTier } from './types.ts';

export {
  buildDailyFeeds,
  type DatasetFeedName,
  type FeedBuildResult,
  type FeedRowSources,
  feedsDir,
  TRAP_WINDOW_MS,
  type TrapSource,
  trapRows,
} from './build.ts';
export {
  buildCatalog,
  catalogItem,
  FEED_INCLUDES,
  FEEDS,
  FORMATS,
  feedDefinition,
  feedDownloadPath,
  feedFileName,
  isEntitled,
  isFeedFormat,
  isFeedName,
} from './catalog.ts';
export {
  entitledFeed,
  type FeedDownload,
  missingSnapshot,
  openFeedFile,
  readSnapshotRows,
  requireFeedManifest,
} from './download.ts';
export { encodeCanonicalRows, encodeFeed } from './encode.ts';
export { rpzIpName } from './encoders/bind.ts';
export { CLOUDFLARE_MAX_EXPRESSION } from './encoders/cloudflare.ts';
export type { EncodeContext } from './encoders/encoder.ts';
export { iptablesChain, iptablesRuleSet } from './encoders/iptables.ts';
export { type CanonicalRow, canonicalizeRow } from './row.ts';
export {
  isSnapshotDate,
  listFeedSnapshots,
  readFeedManifest,
  type WriteSnapshotInput,
  type WriteSnapshotResult,
  writeFeedSnapshot,
} from './snapshot.ts';
export { type RowSource, sortFeedRows } from './sort-rows.ts';
export * from './types.ts';

/** `GET /v1/feeds` body for a key tier, from the latest manifest of each feed in `dir` (`<dataDir>/feeds`). */
export async function listFeedCatalog(dir: string, tier: KeyTier): Promise<FeedCatalog> {
  const latest = new Map<FeedName, FeedManifest | null>();
  for (const name of FEED_NAMES) latest.set(name, await readFeedManifest(dir, name));
  return buildCatalog(tier, (name) => latest.get(name) ?? null);
}
