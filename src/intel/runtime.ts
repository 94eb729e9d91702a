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
import { runSlices, runSlicesYielding, type Slices } from './slices.ts';
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
  sweep(options.dataDir, log);
  const cache: AnswerCache = answerCacheOf(options);

  const refusals = createRefusals(options.dataDir, log);
  let reloading: Promise<{ current: number | null; refused: RefusedSnapshot | null }> | null = null;
  const intelOf = (snapshot: Snapshot) => intelSlicesOf(snapshot, clock, options);

  /**
   * `collect`: a full collection right after (start only: it holds the event loop for tens to
   * hundreds of ms on a large heap, so a reload leaves the old snapshot to V8's own concurrent
   * collector instead).
   */
  function swapIn(snapshot: Snapshot, built: Intel, started: number, collect: boolean): void {
    // The new intel is complete before it replaces the old one in a single assignment: a
    // request sees one or the other, and answers carry the version of the one they read.
    intel = built;
    info = { version: snapshot.version, createdAt: snapshot.createdAt };
    verified = hasDigests(snapshot.manifest);
    refusals.set(refusals.list().filter((r) => r.version > snapshot.version));
    cache.clear();
    state = 'ready';
    failure = null;
    log(loadedLine(snapshot.version, started, verified));
    // The load's garbage goes now, not whenever V8 next collects.
    if (collect) collectGarbage();
  }

  function loadLatest(): boolean {
    const started = performance.now();
    const serving = intel?.datasetVersion ?? null;
    // The directory listing first: when its newest version is the one served, nothing is read.
    const top = snapshotDirs(options.dataDir).find((c) => !isOtherFormat(c.dir));
    if (serving !== null && top?.version === serving) return true;
    const { snapshot, refusedNow } = refusals.loadLatest();
    if (!snapshot) {
      if (refusedNow.length > 0 && !intel) {
        state = 'failed';
        failure = allBroken(refusedNow);
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
    const newer = await readNewer({ dataDir: options.dataDir, serving, started, refusals, log, intelOf });
    // The first load of a start collects its garbage now, as loadLatest does.
    if (newer.found) swapIn(newer.found.snapshot, newer.found.built, started, serving === null);
    return { current: intel?.datasetVersion ?? null, refused: newer.refused };
  }

  /** Concurrent reloads share one load: a snapshot is read and swapped in once. */
  const sharedReload = (): Promise<{ current: number | null; refused: RefusedSnapshot | null }> => {
    reloading ??= reloadNewest().finally(() => {
      reloading = null;
    });
    return reloading;
  };

  const startSteps: StartSteps = {
    dataDir: options.dataDir,
    clock,
    log,
    setState(next, why) {
      state = next;
      if (why !== undefined) failure = why;
    },
    reload: sharedReload,
    serving: () => intel !== null,
  };

  return {
    current: () => intel,
    state: () => state,
    failure: () => failure,
    snapshotInfo: () => info,
    verified: () => (intel ? verified : null),
    refused: () => refusals.list(),
    loadLatest,
    async ensure(opts = {}) {
      if (intel) return;
      starting ??= start(startSteps, opts).finally(() => {
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

/** The refused-snapshot list of a data dir, kept in the dir too (recordRefusedSnapshots), newest first. */
function createRefusals(dataDir: string, log: (message: string) => void) {
  let refused: RefusedSnapshot[] = [];
  const set = (list: RefusedSnapshot[]): void => {
    refused = list;
    recordRefusedSnapshots(dataDir, list);
  };
  const refuse = (r: RefusedSnapshot): void => {
    log(`dataset v${r.version} refused: ${r.reason}`);
  };
  return {
    list: () => refused,
    set,
    /** The newest intact snapshot on disk (loadLatestSnapshot); the ones refused on the way are the list. */
    loadLatest(): { snapshot: Snapshot | null; refusedNow: RefusedSnapshot[] } {
      const refusedNow: RefusedSnapshot[] = [];
      const snapshot = loadLatestSnapshot(dataDir, (r) => {
        refusedNow.push(r);
        refuse(r);
      });
      set(refusedNow);
      return { snapshot, refusedNow };
    },
    /**
     * A snapshot that failed its checks on reload (SnapshotError; anything else is rethrown): logged
     * and added to the refused list in place of an older entry for its version, newest first.
     */
    refuseBroken(err: unknown, version: number): RefusedSnapshot {
      if (!(err instanceof SnapshotError)) throw err;
      const r = { version, reason: err.reason };
      refuse(r);
      set([...refused.filter((x) => x.version !== r.version), r].sort((a, b) => b.version - a.version));
      return r;
    },
  };
}

/** The lookup tables of a snapshot as a sliced build (slices.ts). */
function intelSlicesOf(snapshot: Snapshot, clock: Clock, options: IntelRuntimeOptions) {
  return createIntelSlices({
    snapshot,
    clock,
    ...(options.signals ? { signals: options.signals } : {}),
    ...(options.reverseDns ? { reverseDns: options.reverseDns } : {}),
  });
}

function loadedLine(version: number, started: number, verified: boolean): string {
  return `dataset v${version} loaded in ${Math.round(performance.now() - started)} ms${verified ? '' : ' (unverified: its manifest predates file hashes, sizes checked only)'}`;
}

/** Why a start serves nothing when every snapshot on disk was refused. */
function allBroken(refused: readonly RefusedSnapshot[]): string {
  return `every dataset snapshot is broken (${refused.map((r) => `v${r.version}: ${r.reason}`).join('; ')})`;
}

/** What a start (ensure) needs of the runtime. */
interface StartSteps {
  dataDir: string;
  clock: Clock;
  log: (message: string) => void;
  /** Sets the runtime's state and, when given, why it failed. */
  setState(state: RuntimeState, failure?: string): void;
  /** The shared reload: reads the newest intact snapshot into service. */
  reload(): Promise<unknown>;
  /** Whether a snapshot is being served. */
  serving(): boolean;
}

/**
 * A start: the newest snapshot on disk loaded, or when none loads the first one built (in this
 * process unless `opts.build` says how) and loaded; the state says which, from the call on.
 */
async function start(steps: StartSteps, opts: EnsureOptions): Promise<void> {
  const { dataDir, log } = steps;
  const top = snapshotDirs(dataDir).find((c) => !isOtherFormat(c.dir));
  steps.setState(top ? 'loading' : 'building');
  await opts.after;
  let doing = 'load';
  try {
    if (top) {
      opts.onPhase?.('loading', top.version);
      await steps.reload();
      if (steps.serving()) return;
    }
    steps.setState('building');
    doing = 'build';
    opts.onPhase?.('building', null);
    log('no dataset snapshot yet: building one from the npm data packages');
    if (opts.build) await opts.build();
    else
      await buildDataset({
        dataDir,
        clock: steps.clock,
        onProgress: (e: ProgressEvent) => log(`dataset build ${e.phase}: ${e.message}`),
      });
    const built = snapshotDirs(dataDir).find((c) => !isOtherFormat(c.dir));
    steps.setState('loading');
    opts.onPhase?.('loading', built?.version ?? null);
    await steps.reload();
    if (!steps.serving()) throw new Error('the build wrote no snapshot that loads');
  } catch (err) {
    const failure = (err as Error).message;
    steps.setState('failed', failure);
    log(`dataset ${doing} failed: ${failure}`);
    throw err;
  }
}

/** A build killed before its rename (a crash, SIGKILL, a full disk) left its temp directory: removed. */
function sweep(dataDir: string, log: (message: string) => void): void {
  for (const name of sweepStaleBuilds(dataDir)) log(`removed ${name}: a build that did not finish`);
}

function answerCacheOf(options: IntelRuntimeOptions): AnswerCache {
  return createAnswerCache({
    max: options.cacheSize ?? 100_000,
    ...(options.signals ? { signals: options.signals } : {}),
  });
}

type Refusals = ReturnType<typeof createRefusals>;

/**
 * The newest intact snapshot newer than the serving version, read and its lookup tables built
 * in slices with turns of the event loop between them; each broken one on the way refused
 * (`refused`: the first). Returns without reading when the listing shows nothing newer.
 */
async function readNewer(from: {
  dataDir: string;
  serving: number | null;
  started: number;
  refusals: Refusals;
  log: (message: string) => void;
  intelOf: (snapshot: Snapshot) => Slices<Intel>;
}): Promise<{ found: { snapshot: Snapshot; built: Intel } | null; refused: RefusedSnapshot | null }> {
  const { serving, started, log } = from;
  let first: RefusedSnapshot | null = null;
  for (const c of snapshotDirs(from.dataDir)) {
    // Nothing newer than the serving version: return without reading a snapshot.
    if (serving !== null && c.version <= serving) break;
    if (isOtherFormat(c.dir)) continue;
    try {
      const snapshot = await loadSnapshotAsync(c.dir);
      log(
        `dataset v${snapshot.version} read and checked in ${Math.round(performance.now() - started)} ms; building its lookup tables`,
      );
      return { found: { snapshot, built: await runSlicesYielding(from.intelOf(snapshot)) }, refused: first };
    } catch (err) {
      const r = from.refusals.refuseBroken(err, c.version);
      first ??= r;
    }
  }
  return { found: null, refused: first };
}
