/**
 * The per-instance LRU of IP answers. An entry is keyed by the normalized address and holds
 * the dataset version and the threat signals (listing type, trap hit) it was computed with:
 * a different version or a changed signal is a miss, so blocklist changes show at once.
 * An entry also keeps its answer's JSON once asked for, for the keyed lookup's fast path.
 */
import { LRUCache } from 'lru-cache';
import type { IpWords, ParsedIp } from '../core/ip.ts';
import type { Intel } from './intel.ts';
import type { IpAnswer, ThreatSignalSource } from './types.ts';

interface Entry {
  answer: IpAnswer | null;
  version: number;
  listing: string | null;
  trap: boolean;
  /** JSON.stringify(answer), filled on first use. */
  json: string | null;
  /** Its UTF-8 length less its length in UTF-16 units (0 when it is all ASCII). */
  jsonExtraBytes: number;
}

export interface CachedAnswer {
  answer: IpAnswer | null;
  hit: boolean;
  datasetVersion: number;
}

export interface CachedAnswerJson {
  /** The answer as JSON text, or null when no record covers the address. */
  json: string | null;
  /** `json`'s UTF-8 length less `json.length` (names outside ASCII take more than a byte). */
  jsonExtraBytes: number;
  hit: boolean;
  datasetVersion: number;
}

export interface AnswerCache {
  lookup(intel: Intel, ip: ParsedIp): CachedAnswer;
  /** lookup with the answer as JSON, for an address read with readIp (the keyed fast path). */
  lookupJson(intel: Intel, ip: IpWords): CachedAnswerJson;
  clear(): void;
}

export function createAnswerCache(options: { max: number; signals?: ThreatSignalSource }): AnswerCache {
  const lru = new LRUCache<string, Entry>({ max: Math.max(1, options.max) });
  const signals = options.signals;

  // One of `parsed` and `words` is given: the miss asks the engine with what the caller read.
  function entryFor(
    intel: Intel,
    parsed: ParsedIp | null,
    words: IpWords | null,
  ): { entry: Entry; hit: boolean } {
    const key = (parsed ?? (words as IpWords)).address;
    const version = intel.datasetVersion;
    const listing = signals?.listingFor(key)?.type ?? null;
    const trap = signals?.pristineTrapHitRecent(key) ?? false;
    const e = lru.get(key);
    if (e && e.version === version && e.listing === listing && e.trap === trap)
      return { entry: e, hit: true };
    const answer = parsed ? intel.lookup(parsed) : intel.lookupWords(words as IpWords);
    const entry: Entry = { answer, version, listing, trap, json: null, jsonExtraBytes: 0 };
    lru.set(key, entry);
    return { entry, hit: false };
  }

  return {
    lookup(intel, ip) {
      const { entry, hit } = entryFor(intel, ip, null);
      return { answer: entry.answer, hit, datasetVersion: entry.version };
    },
    lookupJson(intel, ip) {
      const { entry, hit } = entryFor(intel, null, ip);
      if (entry.answer && entry.json === null) {
        const json = JSON.stringify(entry.answer);
        entry.json = json;
        entry.jsonExtraBytes = Buffer.byteLength(json) - json.length;
      }
      return { json: entry.json, jsonExtraBytes: entry.jsonExtraBytes, hit, datasetVersion: entry.version };
    },
    clear: () => lru.clear(),
  };
}
