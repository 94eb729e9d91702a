/**
 * Scheduled `dataset update` (NETREP_DATASET_UPDATE): every instance swaps in a newer snapshot
 * when one appears in the data dir; the builder instance (NETREP_WORKERS on) also downloads the
 * upstream sources and builds a new snapshot when the newest one is older than the interval.
 * A failed download or build changes nothing that is served: the previous upstream copies and
 * the previous snapshot stay, the failure is logged and counted, and the next try comes after
 * `retryMs`. Only one updater works on a data dir at a time (acquireUpdateLock).
 */
import { type Clock, systemClock } from '../core/clock.ts';
import {
  acquireUpdateLock,
  type DownloadResult,
  downloadSources,
  listDatasetVersions,
  resolveSources,
  type SourceSpec,
  upstreamDir,
} from '../dataset/index.ts';
import type { IntelRuntime } from '../intel/index.ts';
import { type BuildRunner, createChildBuildRunner } from './dataset-build-process.ts';
import { schedule } from './schedule.ts';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * NETREP_DATASET_UPDATE: `off`, `daily` (24h), or a whole number and a unit: `90s`, `30m`,
 * `6h`, `2d`. Returns the interval in ms, or null for `off`.
 */
export function parseUpdateInterval(text: string): number | null {
  const v = text.trim().toLowerCase();
  if (v === 'off') return null;
  if (v === 'daily') return UNIT_MS.d;
  const m = /^(\d+)\s*([smhd])$/.exec(v);
  const n = m ? Number(m[1]) : 0;
  if (!m || n <= 0)
    throw new Error(
      `NETREP_DATASET_UPDATE must be off, daily or an interval like 90s, 30m, 6h, 2d; got ${JSON.stringify(text)}`,
    );
  return n * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

export type DatasetUpdateResult =
  | { result: 'ok'; version: number; downloads: DownloadResult[] }
  | {
      result: 'failed';
      stage: 'sources' | 'download' | 'build' | 'load';
      error: string;
      downloads: DownloadResult[];
    }
  | { result: 'skipped'; reason: string };

export interface DatasetUpdateLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What /metrics reports (dataset-metrics.ts). */
export interface DatasetUpdateCounts {
  ok: number;
  failed: number;
  skipped: number;
  /** Failed downloads by source id. */
  downloadFailures: ReadonlyMap<string, number>;
  /** Clock time of the last successful update, null before one. */
  lastSuccessAt: number | null;
}

export interface DatasetUpdater {
  /** Downloads and builds now (tests; the schedule calls it when due). Never rejects. */
  runOnce(): Promise<DatasetUpdateResult>;
  /** One scheduler step: swap in a newer snapshot from disk, then update when due. */
  tick(): Promise<void>;
  /** When the next update is due (clock ms), null when this instance does not build. */
  nextDueAt(): number | null;
  counts(): DatasetUpdateCounts;
  stop(): Promise<void>;
}

export interface DatasetUpdaterOptions {
  dataDir: string;
  clock: Clock;
  /** parseUpdateInterval(NETREP_DATASET_UPDATE): null = off (no timers, no builds). */
  intervalMs: number | null;
  /** NETREP_DATASET_SOURCES (re-read on every update, so an edit needs no restart). */
  sourcesFile: string;
  /** This instance downloads and builds; others only swap in what the builder wrote. */
  builder: boolean;
  /** The serving dataset of this instance (null on an instance without one). */
  runtime: IntelRuntime | null;
  /** false: no timers; runOnce and tick still work. */
  scheduled?: boolean;
  /** How often the schedule looks at the clock and the data dir (default one minute). */
  checkIntervalMs?: number;
  /** Wait after a failed update before the next try (default: the interval, at most one hour). */
  retryMs?: number;
  build?: BuildRunner;
  /** ip-location-db packages directory for the build (tests use the small fixtures). */
  npmDir?: string;
  downloadTimeoutMs?: number;
  logger?: DatasetUpdateLogger;
}

export function startDatasetUpdater(options: DatasetUpdaterOptions): DatasetUpdater {
  const { dataDir, clock, runtime, intervalMs } = options;
  const log = options.logger;
  const build = options.build ?? createChildBuildRunner();
  const retryMs = options.retryMs ?? Math.min(intervalMs ?? 3_600_000, 3_600_000);
  const downloadFailures = new Map<string, number>();
  const counted = { ok: 0, failed: 0, skipped: 0 };
  let lastSuccessAt: number | null = null;
  let lastFailureAt: number | null = null;
  /** A version on disk that failed to load: not retried on every tick. */
  let unloadable: number | null = null;
  let running: Promise<DatasetUpdateResult> | null = null;
  let stopped = false;
  const abort = new AbortController();

  const newestOnDisk = () => listDatasetVersions(dataDir).at(-1) ?? null;

  /** Swaps in the newest snapshot on disk when it is newer than the one served. */
  const swapInNewer = (): void => {
    if (!runtime || runtime.state() === 'building') return;
    const newest = newestOnDisk();
    const serving = runtime.current()?.datasetVersion ?? null;
    if (!newest || newest.version === serving || newest.version === unloadable) return;
    try {
      const { previous, current } = runtime.reload();
      if (current !== previous) log?.info({ previous, current }, `dataset v${current} swapped in`);
    } catch (err) {
      unloadable = newest.version;
      log?.error(
        { err, version: newest.version },
        `dataset v${newest.version} could not be loaded; still serving v${serving}`,
      );
    }
  };

  const nextDueAt = (): number | null => {
    if (!options.builder || intervalMs === null) return null;
    const newest = newestOnDisk();
    const due = newest ? Date.parse(newest.createdAt) + intervalMs : Number.NEGATIVE_INFINITY;
    return lastFailureAt === null ? due : Math.max(due, lastFailureAt + retryMs);
  };

  const failed = (
    stage: 'sources' | 'download' | 'build' | 'load',
    error: string,
    downloads: DownloadResult[],
  ): DatasetUpdateResult => {
    counted.failed++;
    lastFailureAt = clock();
    const serving = runtime?.current()?.datasetVersion ?? null;
    log?.error(
      { stage, error, serving },
      `dataset update failed at ${stage}: ${error}; ${serving === null ? 'nothing' : `v${serving}`} stays served`,
    );
    return { result: 'failed', stage, error, downloads };
  };

  const update = async (): Promise<DatasetUpdateResult> => {
    const release = acquireUpdateLock(dataDir, { now: systemClock() });
    if (!release) {
      counted.skipped++;
      log?.info({}, 'dataset update skipped: another process is updating this data dir');
      return { result: 'skipped', reason: 'another process holds the update lock' };
    }
    try {
      let sources: SourceSpec[];
      try {
        sources = resolveSources(options.sourcesFile);
      } catch (err) {
        return failed('sources', (err as Error).message, []);
      }
      const started = clock();
      log?.info({ sources: sources.length }, 'dataset update: downloading the upstream sources');
      const downloads = await downloadSources({
        dataDir,
        sources,
        ...(options.downloadTimeoutMs ? { timeoutMs: options.downloadTimeoutMs } : {}),
      });
      const bad = downloads.filter((d) => !d.ok);
      for (const d of bad) {
        downloadFailures.set(d.id, (downloadFailures.get(d.id) ?? 0) + 1);
        log?.warn({ source: d.id, error: d.error }, `dataset download ${d.id} failed: ${d.error}`);
      }
      // A snapshot is built from a complete, current set of files or not at all.
      if (bad.length > 0)
        return failed(
          'download',
          `${bad.length} of ${downloads.length} downloads failed (${bad.map((d) => d.id).join(', ')})`,
          downloads,
        );
      if (stopped) return failed('build', 'stopped before the build', downloads);
      let version: number;
      try {
        version = await build({
          dataDir,
          ...(sources.length > 0 ? { from: upstreamDir(dataDir) } : {}),
          ...(options.npmDir ? { npmDir: options.npmDir } : {}),
          now: started,
          signal: abort.signal,
        });
      } catch (err) {
        return failed('build', (err as Error).message, downloads);
      }
      try {
        if (runtime) {
          runtime.reload();
          unloadable = null;
        }
      } catch (err) {
        unloadable = version;
        return failed('load', (err as Error).message, downloads);
      }
      counted.ok++;
      lastSuccessAt = clock();
      lastFailureAt = null;
      log?.info({ version, ms: lastSuccessAt - started }, `dataset update: v${version} built and swapped in`);
      return { result: 'ok', version, downloads };
    } finally {
      release();
    }
  };

  const runOnce = (): Promise<DatasetUpdateResult> => {
    running ??= update()
      .catch((err: unknown) => failed('build', (err as Error).message, []))
      .finally(() => {
        running = null;
      });
    return running;
  };

  const tick = async (): Promise<void> => {
    if (stopped || running) return;
    swapInNewer();
    const due = nextDueAt();
    if (due !== null && clock() >= due && runtime?.state() !== 'building') await runOnce();
  };

  // A timer callback must never throw: an unreadable data dir is logged, the next tick retries.
  const timer = schedule(
    () => void tick().catch((err: unknown) => log?.error({ err }, 'dataset update check failed')),
    {
      intervalMs: options.checkIntervalMs ?? 60_000,
      firstDelayMs: 0,
      enabled: options.scheduled !== false && intervalMs !== null,
    },
  );

  return {
    runOnce,
    tick,
    nextDueAt,
    counts: () => ({ ...counted, downloadFailures, lastSuccessAt }),
    async stop() {
      stopped = true;
      timer.cancel();
      abort.abort();
      await running;
    },
  };
}
