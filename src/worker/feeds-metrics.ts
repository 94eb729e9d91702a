/**
 * Feed builds on /metrics: source rows left out because they are not valid feed rows, and feed
 * builds that failed, per feed. Read at scrape time from the feeds worker.
 */
import { Counter, type Registry } from 'prom-client';
import type { FeedsWorker } from './feeds.ts';

export function registerFeedsMetrics(registry: Registry, worker: FeedsWorker): void {
  new Counter({
    name: 'netrep_feed_rows_skipped_total',
    help: 'Source rows left out of a feed snapshot because they are not valid feed rows (logged as "feed row skipped"), by feed',
    labelNames: ['feed'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [feed, n] of worker.counts().skippedRows) this.inc({ feed }, n);
    },
  });
  new Counter({
    name: 'netrep_feed_build_failures_total',
    help: 'Feed snapshot builds that failed (the other feeds are still built; the next run retries), by feed',
    labelNames: ['feed'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [feed, n] of worker.counts().failedBuilds) this.inc({ feed }, n);
    },
  });
}
