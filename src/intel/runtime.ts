/**
 * The serving dataset of one instance: loads the newest snapshot from the data dir (building
 * the first one from the npm packages when none exists, if asked), swaps in a newer one on
 * reload, and keeps the answer cache of the IP lookup routes in step with the version.
 */

import { type Clock, systemClock } from '../core/clock.ts';
import { collectGarbage } from '../core/collect-garbage.ts';
import type { IpWords, ParsedIp } from '../core/ip.ts';
import {
  buildDataset,
  hasDigests,
  isOtherFormat,
  loadLatestSnapshot,
  loadSnapshotAsync,
  type ProgressEvent,
  type RefusedSnapshot,
  recordRefusedSnapshots,
  type Snapshot,
  SnapshotError,
  snapshotDirs,
  sweepStaleBuilds,
} from '../dataset/index.ts';
import {
  type AnswerCache,
  type CachedAnswer,
  type CachedAnswerJson,
  createAnswerCache,
} from './answer-cache.ts';
import { createIntelSlices, type Intel } from './intel.ts';
import { runSlices, runSlicesYielding } from './slices.ts';
import type { ThreatSignalSource } from './types.ts';

export type { CachedAnswer, CachedAnswerJson } from './answer-cache.ts';

/** 'loading': a start reads the newest snapshot on disk; 'building': it builds the first one. */
export type RuntimeState = 'empty' | 'loading' | 'building' | 'ready' | 'failed';

/** How `ensure` starts the serving dataset (app/dataset.ts: `netrep serve`). */
export interface EnsureOptions {
  /** Builds the first snapshot (a child process); default: in this process. */
  build?: () => Promise<unknown>;
  /** Nothing is read before this settles (the HTTP listener is bound): the state is set at once. */
  after?: Promise<unknown>;
  /** Hears each phase as it begins: the version being loaded, or null while building. */
  onPhase?: (phase: 'loading' | 'building', version: number | null) => void;
}

export interface IntelRuntimeOptions {
  dataDir: string;
  clock?: Clock;
  signals?: ThreatSignalSource;
  reverseDns?: (ip: string) => Promise<string | null>;
  /** Entries of the per-instance answer cache (default 100,000). */
  cacheSize?: number;
  log?: (message: string) => void;
}

export interface IntelRuntime {
  /** The serving intel, or null before the first snapshot is loaded. */
  current(): Intel | null;
  state(): RuntimeState;
  /** Why the last load or build failed. */
  failure(): string | null;
  /** Version and build time (ISO 8601) of the serving snapshot, null before one is loaded. */
  snapshotInfo(): { version: number; createdAt: string } | null;
  /**
   * Whether the serving snapshot's files were checked against their SHA-256 (false: a snapshot
   * built before 2026-11-27, loaded with size checks only); null before one is loaded.
   */
  verified(): boolean | null;
  /** Snapshots newer than the serving one that were refused as broken, newest first. */
  refused(): RefusedSnapshot[];
  /**
   * Loads the newest snapshot that is intact (a broken newer one is refused with a log line);
   * false when none loads. Synchronous: the start of a process, before it listens.
   */
  loadLatest(): boolean;
  /**
   * Loads the newest intact snapshot, or when there is none builds the first from the npm
   * packages and loads it, without holding the event loop (the state says which, from the call
   * on); a reload asked for meanwhile waits for it.
   */
  ensure(options?: EnsureOptions): Promise<void>;
  /**
   * Swaps in the newest intact snapshot newer than the serving one, reading and hashing its
   * files without holding the event loop; returns at once when the directory listing shows no
   * newer version. `refused`: the newest version refused as broken by this call, if any.
   */
  reload(): Promise<{ previous: number | null; current: number | null; refused: RefusedSnapshot | null }>;
  /** The lookup through the answer cache (keyed by normalized IP, version and signal state). */
  lookupCached(ip: ParsedIp): CachedAnswer | null;
  /**
   * lookupCached with the answer as JSON text (kept in the cache entry), for an address read
   * with readIp (the keyed fast path: text to answer without a ParsedIp).
   */
  lookupCachedJson(ip: IpWords): CachedAnswerJson | null;
}

export function createIntelRuntime(options: IntelRuntimeOptions): IntelRuntime {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => undefined);
  let intel: Intel | null = null;
  let info: { version: number; createdAt: string } | null = null;
  let state: RuntimeState = 'empty';
  let failure: string | null = null;
  let verified: boolean | null = null;
  let starting: Promise<void> | null = null;
  // A build killed before its rename (a crash, SIGKILL, a full disk) left its temp directory.
  for (const name of sweepStaleBuilds(options.dataDir)) log(`removed ${name}: a build that did not finish`);
  const cache: AnswerCache = createAnswerCache({
    max: options.cacheSize ?? 100_000,
    ...(options.signals ? { signals: options.signals } : {}),
  });

  let refused: RefusedSnapshot[] = [];
  let reloading: Promise<{ current: number | null; refused: RefusedSnapshot | null }> | null = null;
  const setRefused = (list: RefusedSnapshot[]): void => {
    refused = list;
    recordRefusedSnapshots(options.dataDir, list);
  };
  const refuse = (r: RefusedSnapshot): void => {
    log(`dataset v${r.version} refused: ${r.reason}`);
  };
  /**
   * A snapshot that failed its checks on reload (SnapshotError; anything else is rethrown): logged
   * and added to the refused list in place of an older entry for its version, newest first.
   */
  const refuseBroken = (err: unknown, version: number): RefusedSnapshot => {
    if (!(err instanceof SnapshotError)) throw err;
    const r = { version, reason: err.reason };
    refuse(r);
    setRefused([...refused.filter((x) => x.version !== r.version), r].sort((a, b) => b.version - a.version));
    return r;
  };

  /**
   * `collect`: a full collection right after (start only: it holds the event loop for tens to
   * hundreds of ms on a large heap, so a reload leaves the old snapshot to V8's own concurrent
   * collector instead).
   */
  const intelOf = (snapshot: Snapshot) =>
    createIntelSlices({
      snapshot,
      clock,
      ...(options.signals ? { signals: options.signals } : {}),
      ...(options.reverseDns ? { reverseDns: options.reverseDns } : {}),
    });

  function swapIn(snapshot: Snapshot, built: Intel, started: number, collect: boolean): void {
    // The new intel is complete before it replaces the old one in a single assignment: a
    // request sees one or the other, and answers carry the version of the one they read.
    intel = built;
    info = { version: snapshot.version, createdAt: snapshot.createdAt };
    verified = hasDigests(snapshot.manifest);
    setRefused(refused.filter((r) => r.version > snapshot.version));
    cache.clear();
    state = 'ready';
    failure = null;
    log(
      `dataset v${snapshot.version} loaded in ${Math.round(performance.now() - started)} ms${verified ? '' : ' (unverified: its manifest predates file hashes, sizes checked only)'}`,
    );
    // The load's garbage goes now, not whenever V8 next collects.
    if (collect) collectGarbage();
  }

  function loadLatest(): boolean {
    const started = performance.now();
    const serving = intel?.datasetVersion ?? null;
    // The directory listing first: when its newest version is the one served, nothing is read.
    const top = snapshotDirs(options.dataDir).find((c) => !isOtherFormat(c.dir));
    if (serving !== null && top?.version === serving) return true;
    const refusedNow: RefusedSnapshot[] = [];
    const snapshot = loadLatestSnapshot(options.dataDir, (r) => {
      refusedNow.push(r);
      refuse(r);
    });
    setRefused(refusedNow);
    if (!snapshot) {
      if (refusedNow.length > 0 && !intel) {
        state = 'failed';
        failure = `every dataset snapshot is broken (${refusedNow.map((r) => `v${r.version}: ${r.reason}`).join('; ')})`;
      }
      return false;
    }
    if (intel && snapshot.version === intel.datasetVersion) return true;
    // At start nothing else waits: the tables are built through, no turn of the loop between slices.
    swapIn(snapshot, runSlices(intelOf(snapshot)), started, true);
    return true;
  }

  async function reloadNewest(): Promise<{ current: number | null; refused: RefusedSnapshot | null }> {
    const started = performance.now();
    const serving = intel?.datasetVersion ?? null;
    let first: RefusedSnapshot | null = null;
    for (const c of snapshotDirs(options.dataDir)) {
      // Nothing newer than the serving version: return without reading a snapshot.
      if (serving !== null && c.version <= serving) break;
      if (isOtherFormat(c.dir)) continue;
      try {
        const snapshot = await loadSnapshotAsync(c.dir);
        log(
          `dataset v${snapshot.version} read and checked in ${Math.round(performance.now() - started)} ms; building its lookup tables`,
        );
        // The lookup tables are built in slices with turns of the event loop between them.
        const built = await runSlicesYielding(intelOf(snapshot));
        // The first load of a start collects its garbage now, as loadLatest does.
        swapIn(snapshot, built, started, serving === null);
        break;
      } catch (err) {
        const r = refuseBroken(err, c.version);
        first ??= r;
      }
    }
    return { current: intel?.datasetVersion ?? null, refused: first };
  }

  /** Concurrent reloads share one load: a snapshot is read and swapped in once. */
  const sharedReload = (): Promise<{ current: number | null; refused: RefusedSnapshot | null }> => {
    reloading ??= reloadNewest().finally(() => {
      reloading = null;
    });
    return reloading;
  };

  async function start(opts: EnsureOptions): Promise<void> {
    const top = snapshotDirs(options.dataDir).find((c) => !isOtherFormat(c.dir));
    state = top ? 'loading' : 'building';
    await opts.after;
    let doing = 'load';
    try {
      if (top) {
        opts.onPhase?.('loading', top.version);
        await sharedReload();
        if (intel) return;
      }
      state = 'building';
      doing = 'build';
      opts.onPhase?.('building', null);
      log('no dataset snapshot yet: building one from the npm data packages');
      if (opts.build) await opts.build();
      else
        await buildDataset({
          dataDir: options.dataDir,
          clock,
          onProgress: (e: ProgressEvent) => log(`dataset build ${e.phase}: ${e.message}`),
        });
      const built = snapshotDirs(options.dataDir).find((c) => !isOtherFormat(c.dir));
      state = 'loading';
      opts.onPhase?.('loading', built?.version ?? null);
      await sharedReload();
      if (!intel) throw new Error('the build wrote no snapshot that loads');
    } catch (err) {
      state = 'failed';
      failure = (err as Error).message;
      log(`dataset ${doing} failed: ${failure}`);
      throw err;
    }
  }

  return {
    current: () => intel,
    state: () => state,
    failure: () => failure,
    snapshotInfo: () => info,
    verified: () => (intel ? verified : null),
    refused: () => refused,
    loadLatest,
    async ensure(opts = {}) {
      if (intel) return;
      starting ??= start(opts).finally(() => {
        starting = null;
      });
      await starting;
    },
    async reload() {
      // A start in progress reads the newest snapshot itself: this looks again once it is done.
      if (starting) await starting.catch(() => undefined);
      const previous = intel?.datasetVersion ?? null;
      const { current, refused: broken } = await sharedReload();
      return { previous, current, refused: broken };
    },
    lookupCached(ip) {
      if (!intel) return null;
      return cache.lookup(intel, ip);
    },
    lookupCachedJson(ip) {
      if (!intel) return null;
      return cache.lookupJson(intel, ip);
    },
  };
}
