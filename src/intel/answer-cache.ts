/**
 * The per-instance LRU of IP answers. An entry is keyed by the normalized address and holds
 * the dataset version and the threat signals (listing type, trap hit) it was computed with:
 * a different version or a changed signal is a miss, so blocklist changes show at once.
 */
import { LRUCache } from 'lru-cache';
import type { ParsedIp } from '../core/ip.ts';
import type { Intel } from './intel.ts';
import type { IpAnswer, ThreatSignalSource } from './types.ts';

interface Entry {
  answer: IpAnswer | null;
  version: number;
  listing: string | null;
  trap: boolean;
}

export interface AnswerCache {
  lookup(intel: Intel, ip: ParsedIp): { answer: IpAnswer | null; hit: boolean; datasetVersion: number };
  clear(): void;
}

export function createAnswerCache(options: { max: number; signals?: ThreatSignalSource }): AnswerCache {
  const lru = new LRUCache<string, Entry>({ max: Math.max(1, options.max) });
  const signals = options.signals;
  return {
    lookup(intel, ip) {
      const key = ip.address;
      const version = intel.datasetVersion;
      const listing = signals?.listingFor(key)?.type ?? null;
      const trap = signals?.pristineTrapHitRecent(key) ?? false;
      const e = lru.get(key);
      if (e && e.version === version && e.listing === listing && e.trap === trap) {
        return { answer: e.answer, hit: true, datasetVersion: version };
      }
      const answer = intel.lookup(ip);
      lru.set(key, { answer, version, listing, trap });
      return { answer, hit: false, datasetVersion: version };
    },
    clear: () => lru.clear(),
  };
}
