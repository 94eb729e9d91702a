import { buildCatalog } from './catalog.ts';
import { readFeedManifest } from './snapshot.ts';
import { FEED_NAMES, type FeedCatalog, type FeedManifest, type FeedName, type KeyTier } from './types.ts';

export {
  buildDailyFeeds,
  type FeedBuildResult,
  type FeedRowSources,
  feedsDir,
} from './build.ts';
export {
  FORMATS,
  feedDefinition,
  isFeedName,
} from './catalog.ts';
export {
  entitledFeed,
  type FeedDownload,
  missingSnapshot,
  openFeedFile,
  requireFeedManifest,
} from './download.ts';
export { encodeCanonicalRows } from './encode.ts';
export { CLOUDFLARE_MAX_EXPRESSION } from './encoders/cloudflare.ts';
export type { EncodeContext } from './encoders/encoder.ts';
export type { CanonicalRow } from './row.ts';
export {
  listFeedSnapshots,
  readFeedManifest,
  writeFeedSnapshot,
} from './snapshot.ts';
export { sortFeedRows } from './sort-rows.ts';
export * from './types.ts';

/** `GET /v1/feeds` body for a key tier, from the latest manifest of each feed in `dir` (`<dataDir>/feeds`). */
export async function listFeedCatalog(dir: string, tier: KeyTier): Promise<FeedCatalog> {
  const latest = new Map<FeedName, FeedManifest | null>();
  for (const name of FEED_NAMES) latest.set(name, await readFeedManifest(dir, name));
  return buildCatalog(tier, (name) => latest.get(name) ?? null);
}
