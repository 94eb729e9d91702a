/**
 * The per-instance LRU of IP answers. An entry is keyed by the normalized address and holds
 * the dataset version and the threat signals (listing type, trap hit) it was computed with:
 * a different version or a changed signal is a miss, so blocklist changes show at once.
 * An entry also keeps its answer's JSON once asked for, for the keyed lookup's fast path.
 */
import { LRUCache } from 'lru-cache';
import { type IpWords, ipv4ToInt, type ParsedIp } from '../core/ip.ts';
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
  // Keyed by the address: IPv4 as its unsigned integer (a Map finds a number without hashing
  // and flattening the text, which is a slice of the request line on the fast path), IPv6 as
  // its normalized text. The two kinds never collide.
  const lru = new LRUCache<number | string, Entry>({ max: Math.max(1, options.max) });
  const signals = options.signals;
  /** Whether the last entryFor found its entry (no result object per lookup). */
  let lastHit = false;

  // One of `parsed` and `words` is given: the miss asks the engine with what the caller read.
  function entryFor(intel: Intel, parsed: ParsedIp | null, words: IpWords | null): Entry {
    let address: string;
    let key: number | string;
    if (parsed) {
      address = parsed.address;
      key = parsed.family === 4 ? ipv4ToInt(parsed.bytes) : address;
    } else {
      const w = words as IpWords;
      address = w.address;
      key = w.family === 4 ? (w.words[0] as number) : address;
    }
    const version = intel.datasetVersion;
    const listing = signals?.listingFor(address)?.type ?? null;
    const trap = signals?.pristineTrapHitRecent(address) ?? false;
    const e = lru.get(key);
    if (e && e.version === version && e.listing === listing && e.trap === trap) {
      lastHit = true;
      return e;
    }
    const answer = parsed ? intel.lookup(parsed) : intel.lookupWords(words as IpWords);
    const entry: Entry = { answer, version, listing, trap, json: null, jsonExtraBytes: 0 };
    lru.set(key, entry);
    lastHit = false;
    return entry;
  }

  return {
    lookup(intel, ip) {
      const entry = entryFor(intel, ip, null);
      return { answer: entry.answer, hit: lastHit, datasetVersion: entry.version };
    },
    lookupJson(intel, ip) {
      const entry = entryFor(intel, null, ip);
      const hit = lastHit;
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
