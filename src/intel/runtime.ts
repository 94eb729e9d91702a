/**
 * The serving dataset of one instance: loads the newest snapshot from the data dir (building
 * the first one from the npm packages when none exists, if asked), swaps in a newer one on
 * reload, and keeps the answer cache of the IP lookup routes in step with the version.
 */

import { type Clock, systemClock } from '../core/clock.ts';
import { collectGarbage } from '../core/collect-garbage.ts';
import type { IpWords, ParsedIp } from '../core/ip.ts';
import { buildDataset, loadLatestSnapshot, type ProgressEvent, sweepStaleBuilds } from '../dataset/index.ts';
import {
  type AnswerCache,
  type CachedAnswer,
  type CachedAnswerJson,
  createAnswerCache,
} from './answer-cache.ts';
import { createIntel, type Intel } from './intel.ts';
import type { ThreatSignalSource } from './types.ts';

export type { CachedAnswer, CachedAnswerJson } from './answer-cache.ts';

export type RuntimeState = 'empty' | 'building' | 'ready' | 'failed';

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
  /** Loads the newest built snapshot; false when none exists. */
  loadLatest(): boolean;
  /** loadLatest, or when nothing is built yet: build from the npm packages, then load. */
  ensure(): Promise<void>;
  /** Swaps in the newest built snapshot; returns the previous and current versions. */
  reload(): { previous: number | null; current: number | null };
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
  let building: Promise<void> | null = null;
  // A build killed before its rename (a crash, SIGKILL, a full disk) left its temp directory.
  for (const name of sweepStaleBuilds(options.dataDir)) log(`removed ${name}: a build that did not finish`);
  const cache: AnswerCache = createAnswerCache({
    max: options.cacheSize ?? 100_000,
    ...(options.signals ? { signals: options.signals } : {}),
  });

  function loadLatest(): boolean {
    const started = performance.now();
    const snapshot = loadLatestSnapshot(options.dataDir);
    if (!snapshot) return false;
    if (intel && snapshot.version === intel.datasetVersion) return true;
    // The new intel is complete before it replaces the old one in a single assignment: a
    // request sees one or the other, and answers carry the version of the one they read.
    intel = createIntel({
      snapshot,
      clock,
      ...(options.signals ? { signals: options.signals } : {}),
      ...(options.reverseDns ? { reverseDns: options.reverseDns } : {}),
    });
    info = { version: snapshot.version, createdAt: snapshot.createdAt };
    cache.clear();
    state = 'ready';
    failure = null;
    log(`dataset v${snapshot.version} loaded in ${Math.round(performance.now() - started)} ms`);
    // The load's garbage (and a replaced snapshot) goes now, not whenever V8 next collects.
    collectGarbage();
    return true;
  }

  async function buildFirst(): Promise<void> {
    state = 'building';
    log('no dataset snapshot yet: building one from the npm data packages');
    try {
      await buildDataset({
        dataDir: options.dataDir,
        clock,
        onProgress: (e: ProgressEvent) => log(`dataset build ${e.phase}: ${e.message}`),
      });
      if (!loadLatest()) throw new Error('the build wrote no snapshot');
    } catch (err) {
      state = 'failed';
      failure = (err as Error).message;
      log(`dataset build failed: ${failure}`);
      throw err;
    }
  }

  return {
    current: () => intel,
    state: () => state,
    failure: () => failure,
    snapshotInfo: () => info,
    loadLatest,
    async ensure() {
      if (loadLatest()) return;
      building ??= buildFirst().finally(() => {
        building = null;
      });
      await building;
    },
    reload() {
      const previous = intel?.datasetVersion ?? null;
      loadLatest();
      return { previous, current: intel?.datasetVersion ?? null };
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
