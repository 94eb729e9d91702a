/**
 * Scheduled `dataset update` (NETREP_DATASET_UPDATE): every instance swaps in a newer snapshot
 * when one appears in the data dir; the builder instance (NETREP_WORKERS on) also downloads the
 * upstream sources and builds a new snapshot when the newest one is older than the interval, or
 * at once when it holds no upstream source (a first start, whose snapshot comes from the npm
 * packages only: until the first update every flag from an upstream list is false; its
 * downloads run while that snapshot is built, its build right after).
 * A failed download or build changes nothing that is served: the previous upstream copies and
 * the previous snapshot stay, the failure is logged, counted and recorded per source
 * (dataset/update-status.ts), and the next try comes after a back-off that doubles with each
 * failure in a row (NETREP_DATASET_UPDATE_RETRY, up to the interval and at most an hour). On a
 * first start the snapshot is built from the downloads that worked (something beats nothing);
 * afterwards only from a complete set. Only one updater works on a data dir at a time
 * (acquireUpdateLock).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Clock, systemClock } from '../core/clock.ts';
import {
  acquireUpdateLock,
  type DownloadResult,
  downloadSources,
  holdsUpstreamSources,
  listDatasetVersions,
  type Manifest,
  readUpdateStatus,
  recordUpdateAttempt,
  resolveSources,
  type SourceSpec,
  type UpdateResult,
  upstreamDir,
  writeUpdateStatus,
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
  return parseDuration(text, 'NETREP_DATASET_UPDATE', 'off, daily or an interval like 90s, 30m, 6h, 2d');
}

/** NETREP_DATASET_UPDATE_RETRY: a whole number and a unit (`1s`, `30s`, `5m`, `1h`), in ms. */
export function parseRetryDelay(text: string): number {
  return parseDuration(text, 'NETREP_DATASET_UPDATE_RETRY', 'an interval like 30s, 5m, 1h');
}

function parseDuration(text: string, name: string, expected: string): number {
  const m = /^(\d+)\s*([smhd])$/.exec(text.trim().toLowerCase());
  const n = m ? Number(m[1]) : 0;
  if (!m || n <= 0) throw new Error(`${name} must be ${expected}; got ${JSON.stringify(text)}`);
  return n * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** The wait before retry number `failures` (1, 2, ...): `first`, doubled each time, up to `max`. */
export function retryDelay(failures: number, first: number, max: number): number {
  return Math.min(first * 2 ** Math.min(Math.max(failures - 1, 0), 30), Math.max(first, max));
}

export type DatasetUpdateResult =
  | { result: 'ok'; version: number; downloads: DownloadResult[] }
  /** A first start: built from the downloads that worked although some failed (retried soon). */
  | { result: 'partial'; version: number; downloads: DownloadResult[] }
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
  partial: number;
  failed: number;
  skipped: number;
  /** Failed downloads by source id. */
  downloadFailures: ReadonlyMap<string, number>;
  /** Clock time of the last successful update, null before one. */
  lastSuccessAt: number | null;
  /** Failed or partial updates in a row (the retry back-off). */
  consecutiveFailures: number;
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
  /**
   * Wait after a failed update before the first retry (NETREP_DATASET_UPDATE_RETRY, default five
   * minutes); each failure in a row doubles it, up to `maxRetryMs`.
   */
  retryMs?: number;
  /** The longest wait between retries (default: the interval, at most one hour). */
  maxRetryMs?: number;
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
  const retryMs = Math.min(options.retryMs ?? 5 * 60_000, intervalMs ?? Number.POSITIVE_INFINITY);
  const maxRetryMs = options.maxRetryMs ?? Math.min(intervalMs ?? 3_600_000, 3_600_000);
  const checkIntervalMs = options.checkIntervalMs ?? 60_000;
  const scheduled = options.scheduled !== false && intervalMs !== null;
  const downloadFailures = new Map<string, number>();
  const counted = { ok: 0, partial: 0, failed: 0, skipped: 0 };
  let lastSuccessAt: number | null = null;
  // The back-off survives a restart: a process restarted during an upstream outage does not
  // hammer the upstreams at once (the recorded attempt is by the same kind of clock).
  const recorded = options.builder ? readUpdateStatus(dataDir) : null;
  const recordedFailure = recorded?.last_attempt && recorded.last_attempt.result !== 'ok';
  let failures = recordedFailure ? recorded.consecutive_failures : 0;
  let lastFailureAt: number | null = recordedFailure ? Date.parse(recorded.last_attempt?.at ?? '') : null;
  if (lastFailureAt !== null && !Number.isFinite(lastFailureAt)) lastFailureAt = null;
  /**
   * An attempt since the last full update built something although downloads failed: the retry
   * comes on the back-off, before the interval. After a restart, any recorded failure counts.
   */
  let partialPending = recordedFailure === true;
  /** The version the last update built (an update with no sources configured builds from npm only). */
  let builtByUpdate: number | null = recorded?.last_attempt?.version ?? null;
  /** A version on disk that failed to load: not retried on every tick. */
  let unloadable: number | null = null;
  let running: Promise<DatasetUpdateResult> | null = null;
  /** Another process held the update lock last time: wait for the periodic check, no wake-up. */
  let lockedOut = false;
  let stopped = false;
  const abort = new AbortController();

  const newestOnDisk = () => listDatasetVersions(dataDir).at(-1) ?? null;
  let manifestSeen: { dir: string; upstream: boolean } | null = null;
  /** Whether the snapshot in `dir` holds an upstream source (read once per snapshot). */
  const holdsUpstream = (dir: string): boolean => {
    if (manifestSeen?.dir === dir) return manifestSeen.upstream;
    let upstream = true;
    try {
      upstream = holdsUpstreamSources(
        JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest,
      );
    } catch {
      // Unreadable: treated as a normal snapshot, so the schedule does not spin on it.
    }
    manifestSeen = { dir, upstream };
    return upstream;
  };

  /** Swaps in the newest snapshot on disk when it is newer than the one served. */
  const swapInNewer = async (): Promise<void> => {
    if (!runtime || runtime.state() === 'building') return;
    const newest = newestOnDisk();
    const serving = runtime.current()?.datasetVersion ?? null;
    if (!newest || newest.version === serving || newest.version === unloadable) return;
    try {
      // A broken snapshot is refused by the runtime (logged with its reason): not retried.
      const { previous, current, refused } = await runtime.reload();
      if (refused?.version === newest.version) unloadable = newest.version;
      if (current !== previous) log?.info({ previous, current }, `dataset v${current} swapped in`);
    } catch (err) {
      unloadable = newest.version;
      log?.error(
        { err, version: newest.version },
        `dataset v${newest.version} could not be loaded; still serving v${serving}`,
      );
    }
  };

  /** No snapshot, or one without any upstream source that no update built: update at once. */
  const blind = (newest: ReturnType<typeof newestOnDisk>): boolean =>
    !newest || (newest.version !== builtByUpdate && !holdsUpstream(newest.dir));

  const nextDueAt = (): number | null => {
    if (!options.builder || intervalMs === null) return null;
    const newest = newestOnDisk();
    const due =
      !newest || blind(newest) ? Number.NEGATIVE_INFINITY : Date.parse(newest.createdAt) + intervalMs;
    if (failures === 0 || lastFailureAt === null) return due;
    const retryAt = lastFailureAt + retryDelay(failures, retryMs, maxRetryMs);
    return partialPending ? retryAt : Math.max(due, retryAt);
  };

  /** Records the attempt for `dataset status`, /readyz and the dashboard of every instance. */
  const record = (
    result: UpdateResult,
    downloads: DownloadResult[],
    extra: { stage?: string; error?: string; version?: number },
  ): void => {
    try {
      const status = recordUpdateAttempt(readUpdateStatus(dataDir), {
        at: clock(),
        result,
        downloads,
        ...extra,
      });
      const next = nextDueAt();
      status.next_attempt_at =
        next === null ? null : new Date(Number.isFinite(next) ? next : clock()).toISOString();
      writeUpdateStatus(dataDir, status);
    } catch (err) {
      log?.warn({ err }, 'dataset update: the status file could not be written');
    }
  };

  const failed = (
    stage: 'sources' | 'download' | 'build' | 'load',
    error: string,
    downloads: DownloadResult[],
  ): DatasetUpdateResult => {
    counted.failed++;
    failures++;
    lastFailureAt = clock();
    // partialPending stays: a snapshot that lacks sources is retried on the back-off, not in a day.
    const serving = runtime?.current()?.datasetVersion ?? null;
    const retry = retryDelay(failures, retryMs, maxRetryMs);
    log?.error(
      { stage, error, serving, failures, retry_ms: retry },
      `dataset update failed at ${stage}: ${error}; ${serving === null ? 'nothing' : `v${serving}`} stays served; next try in ${Math.round(retry / 1000)} s`,
    );
    record('failed', downloads, { stage, error });
    return { result: 'failed', stage, error, downloads };
  };

  const update = async (): Promise<DatasetUpdateResult> => {
    const release = acquireUpdateLock(dataDir, { now: systemClock() });
    if (!release) {
      counted.skipped++;
      lockedOut = true;
      log?.info({}, 'dataset update skipped: another process is updating this data dir');
      return { result: 'skipped', reason: 'another process holds the update lock' };
    }
    lockedOut = false;
    try {
      let sources: SourceSpec[];
      try {
        sources = resolveSources(options.sourcesFile);
      } catch (err) {
        return failed('sources', (err as Error).message, []);
      }
      const started = clock();
      const firstStart = blind(newestOnDisk());
      log?.info(
        { sources: sources.length, first: firstStart },
        `dataset update: downloading the upstream sources${firstStart ? ' (the serving snapshot holds none yet)' : ''}`,
      );
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
      const badText = `${bad.length} of ${downloads.length} downloads failed (${bad.map((d) => d.id).join(', ')})`;
      // A snapshot is built from a complete, current set of files, except on a first start:
      // there the downloads that worked beat a snapshot with no upstream source at all.
      if (bad.length > 0 && (!firstStart || bad.length === downloads.length))
        return failed('download', badText, downloads);
      // A first start downloads while this process builds its npm-only snapshot; the update's
      // build waits for that one (both would number their snapshot v1).
      while (runtime?.state() === 'building' && !stopped) await new Promise((r) => setTimeout(r, 250));
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
      builtByUpdate = version;
      try {
        if (runtime) {
          const { refused } = await runtime.reload();
          if (refused?.version === version)
            throw new Error(`dataset v${version} is broken: ${refused.reason}`);
          unloadable = null;
        }
      } catch (err) {
        unloadable = version;
        return failed('load', (err as Error).message, downloads);
      }
      if (bad.length > 0) {
        counted.partial++;
        failures++;
        lastFailureAt = clock();
        partialPending = true;
        log?.warn(
          { version, failures },
          `dataset update: v${version} built and swapped in without ${bad.length} of ${downloads.length} sources (${bad.map((d) => d.id).join(', ')}); they are tried again in ${Math.round(retryDelay(failures, retryMs, maxRetryMs) / 1000)} s`,
        );
        record('partial', downloads, { stage: 'download', error: badText, version });
        return { result: 'partial', version, downloads };
      }
      counted.ok++;
      lastSuccessAt = clock();
      lastFailureAt = null;
      failures = 0;
      partialPending = false;
      log?.info({ version, ms: lastSuccessAt - started }, `dataset update: v${version} built and swapped in`);
      record('ok', downloads, { version });
      return { result: 'ok', version, downloads };
    } finally {
      release();
    }
  };

  // The periodic check runs every checkIntervalMs; when an update is due sooner (a retry, the
  // first update once the first snapshot is loaded), a one-off wake-up comes at that time.
  let wake: NodeJS.Timeout | null = null;
  const armWake = (): void => {
    if (!scheduled || stopped) return;
    if (wake) clearTimeout(wake);
    wake = null;
    let delay: number | null = null;
    if (lockedOut) return;
    if (runtime?.state() === 'building' && nextDueAt() !== Number.NEGATIVE_INFINITY) delay = 1000;
    else {
      const due = nextDueAt();
      if (due !== null) delay = Math.max(0, Number.isFinite(due) ? due - clock() : 0);
    }
    if (delay === null || delay >= checkIntervalMs) return;
    wake = setTimeout(() => {
      wake = null;
      void tick().catch((err: unknown) => log?.error({ err }, 'dataset update check failed'));
    }, delay);
    wake.unref();
  };

  const runOnce = (): Promise<DatasetUpdateResult> => {
    running ??= update()
      .catch((err: unknown) => failed('build', (err as Error).message, []))
      .finally(() => {
        running = null;
        armWake();
      });
    return running;
  };

  async function tick(): Promise<void> {
    if (stopped || running) return;
    await swapInNewer();
    const due = nextDueAt();
    // While this process builds its first snapshot, only a first-start update may begin (its
    // downloads overlap that build); any other waits for the build to end.
    const building = runtime?.state() === 'building';
    if (due !== null && clock() >= due && (!building || due === Number.NEGATIVE_INFINITY)) await runOnce();
    else armWake();
  }

  // A timer callback must never throw: an unreadable data dir is logged, the next tick retries.
  const timer = schedule(
    () => void tick().catch((err: unknown) => log?.error({ err }, 'dataset update check failed')),
    { intervalMs: checkIntervalMs, firstDelayMs: 0, enabled: scheduled },
  );

  return {
    runOnce,
    tick,
    nextDueAt,
    counts: () => ({ ...counted, downloadFailures, lastSuccessAt, consecutiveFailures: failures }),
    async stop() {
      stopped = true;
      timer.cancel();
      if (wake) clearTimeout(wake);
      abort.abort();
      await running;
    },
  };
}
