/**
 * A bounded in-memory cache of zone answers, keyed by zone and address, each kept for its own
 * time (from the injected clock). Concurrent misses of one key share one lookup, so a page
 * reloaded while a slow list is asked sends its queries once.
 */
import { LRUCache } from 'lru-cache';
import type { Clock } from '../core/clock.ts';

export interface Cached<V> {
  value: V;
  /** When the value was looked up (epoch ms). */
  at: number;
  cached: boolean;
}

export function createAnswerCache<V>(options: { clock: Clock; maxEntries: number }) {
  const entries = new LRUCache<string, { value: V; at: number; until: number }>({ max: options.maxEntries });
  const inFlight = new Map<string, Promise<Cached<V>>>();
  return {
    /** The kept value of `key`, else `load()`'s, kept for `keepMs(value)` milliseconds (0: not kept). */
    async get(key: string, load: () => Promise<V>, keepMs: (value: V) => number): Promise<Cached<V>> {
      const now = options.clock();
      const hit = entries.get(key);
      if (hit && hit.until > now) return { value: hit.value, at: hit.at, cached: true };
      const pending = inFlight.get(key);
      if (pending) return pending;
      const lookup = (async () => {
        const value = await load();
        const at = options.clock();
        const ms = keepMs(value);
        if (ms > 0) entries.set(key, { value, at, until: at + ms });
        return { value, at, cached: false };
      })().finally(() => inFlight.delete(key));
      inFlight.set(key, lookup);
      return lookup;
    },
  };
}
