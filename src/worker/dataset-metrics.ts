/**
 * Dataset freshness on /metrics: the serving version and its age, and how scheduled updates
 * went. Read at scrape time from the runtime and the updater, so nothing is pushed on the
 * lookup path.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../core/clock.ts';
import { listDatasetVersions } from '../dataset/index.ts';
import type { IntelRuntime } from '../intel/index.ts';
import type { DatasetUpdater } from './dataset-update.ts';

export function registerDatasetMetrics(
  registry: Registry,
  source: { dataDir: string; clock: Clock; runtime: IntelRuntime | null; updater: DatasetUpdater | null },
): void {
  // The serving snapshot; on an instance that serves none (netrep worker), the newest on disk.
  const snapshot = (): { version: number; createdAt: string } | null => {
    const serving = source.runtime?.snapshotInfo() ?? null;
    if (serving) return serving;
    const newest = listDatasetVersions(source.dataDir).at(-1);
    return newest ? { version: newest.version, createdAt: newest.createdAt } : null;
  };
  new Gauge({
    name: 'netrep_dataset_version',
    help: 'Version of the dataset snapshot this instance serves (0 before one is loaded)',
    registers: [registry],
    collect() {
      this.set(snapshot()?.version ?? 0);
    },
  });
  new Gauge({
    name: 'netrep_dataset_age_seconds',
    help: 'Seconds since the served dataset snapshot was built (0 before one is loaded: see netrep_dataset_version)',
    registers: [registry],
    collect() {
      const s = snapshot();
      this.set(s ? Math.max(0, (source.clock() - Date.parse(s.createdAt)) / 1000) : 0);
    },
  });
  const updater = source.updater;
  if (!updater) return;
  new Counter({
    name: 'netrep_dataset_update_total',
    help: 'Scheduled dataset updates by result: ok (built and swapped in), partial (a first start built from the downloads that worked), failed (download or build; the previous snapshot stays), skipped (another process was updating)',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      const c = updater.counts();
      this.reset();
      for (const result of ['ok', 'partial', 'failed', 'skipped'] as const) this.inc({ result }, c[result]);
    },
  });
  new Counter({
    name: 'netrep_dataset_download_failures_total',
    help: 'Failed upstream downloads of scheduled dataset updates, by source id',
    labelNames: ['source'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [id, n] of updater.counts().downloadFailures) this.inc({ source: id }, n);
    },
  });
  new Gauge({
    name: 'netrep_dataset_update_next_due_seconds',
    help: 'Seconds until this instance next downloads and builds (negative: overdue; absent when it does not build)',
    registers: [registry],
    collect() {
      this.reset();
      const due = updater.nextDueAt();
      if (due !== null) this.set(Number.isFinite(due) ? (due - source.clock()) / 1000 : 0);
    },
  });
}
