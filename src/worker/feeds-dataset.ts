/**
 * The dataset half of the feed row sources: the newest dataset snapshot of a data dir that has
 * feed rows. Shared by the serving process (feeds.ts) and the feed build child, which reads no
 * store (feeds-build-child.ts).
 */
import { hasFeedRows, listDatasetVersions, readFeedRows } from '../dataset/index.ts';
import type { FeedRowSources } from '../feeds/index.ts';

export function newestFeedDataset(dataDir: string): FeedRowSources['dataset'] {
  return async () => {
    const versions = listDatasetVersions(dataDir);
    for (let i = versions.length - 1; i >= 0; i--) {
      const v = versions[i];
      if (v && hasFeedRows(v.dir)) return { version: v.version, rows: (feed) => readFeedRows(v.dir, feed) };
    }
    return null;
  };
}
