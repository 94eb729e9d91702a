/**
 * The counters an instance remembers for an outage (outage.ts): what Redis last said each had
 * consumed, and what was allowed here while Redis was away, until it is added back.
 */
import type { RateLimiterAbstract } from 'rate-limiter-flexible';

/** Counters remembered or pending at most (a flood of client addresses during an outage). */
const MAX_ENTRIES = 200_000;
/** Forgetting expired counters runs at most this often once the table is full. */
const PRUNE_MS = 1_000;

export interface CounterEntry {
  limiter: RateLimiterAbstract;
  key: string;
  /** Consumed points as Redis last told this instance; null: never read. */
  known: number | null;
  /** Allowed here while Redis was away, not yet added back. */
  local: number;
  /** After this time the counter no longer matters (its window or day is over). */
  expiresAt: number;
}

export interface LocalCounts {
  /** The counter of `key` of `limiter`, null when there is none or its time is over (then dropped). */
  get(limiter: RateLimiterAbstract, key: string, t: number): CounterEntry | null;
  /** Remembers Redis's count of a counter; past the cap a new one is not remembered. */
  seen(limiter: RateLimiterAbstract, key: string, consumed: number, expiresAt: number): void;
  /** A counter begun now; remembered unless the table is full (it is still counted). */
  begin(limiter: RateLimiterAbstract, key: string, expiresAt: number, t: number): CounterEntry;
  /** Requests allowed here and not yet added back. */
  pending(): number;
  /** One pass at time `t`: adds back every pending count; returns whether any was added. */
  addBack(t: number): Promise<boolean>;
}

/** `now` is read only when a counter is new (the table may need pruning). */
export function createLocalCounts(now: () => number): LocalCounts {
  const entries = new Map<string, CounterEntry>();
  const entryKey = (limiter: RateLimiterAbstract, key: string) => `${limiter.keyPrefix}\0${key}`;
  let lastPrune = 0;
  const prune = (t: number) => {
    if (entries.size < MAX_ENTRIES || t - lastPrune < PRUNE_MS) return;
    lastPrune = t;
    for (const [k, e] of entries)
      if (e.expiresAt <= t || (e.local === 0 && e.known === null)) entries.delete(k);
  };
  return {
    get(limiter, key, t) {
      const k = entryKey(limiter, key);
      const e = entries.get(k);
      if (!e) return null;
      if (e.expiresAt > t) return e;
      entries.delete(k);
      return null;
    },
    seen(limiter, key, consumed, expiresAt) {
      const k = entryKey(limiter, key);
      const e = entries.get(k);
      if (e) {
        e.known = consumed;
        e.expiresAt = expiresAt;
        return;
      }
      prune(now());
      if (entries.size >= MAX_ENTRIES) return;
      entries.set(k, { limiter, key, known: consumed, local: 0, expiresAt });
    },
    begin(limiter, key, expiresAt, t) {
      prune(t);
      const e: CounterEntry = { limiter, key, known: null, local: 0, expiresAt };
      // Past the cap the request is still counted, just not remembered for the add-back.
      if (entries.size < MAX_ENTRIES) entries.set(entryKey(limiter, key), e);
      return e;
    },
    pending() {
      let pending = 0;
      for (const e of entries.values()) pending += e.local;
      return pending;
    },
    addBack: (t) => addBack(entries.values(), t),
  };
}

/** Adds back the pending counts, a hundred at a time; a counter whose time is over drops its count. */
async function addBack(entries: Iterable<CounterEntry>, t: number): Promise<boolean> {
  const due: CounterEntry[] = [];
  for (const e of entries) {
    if (e.local === 0) continue;
    // A counter whose window or day is over has nothing left to count against.
    if (e.expiresAt <= t) e.local = 0;
    else due.push(e);
  }
  for (let i = 0; i < due.length; i += 100) {
    await Promise.all(
      due.slice(i, i + 100).map(async (e) => {
        const points = e.local;
        const res = await e.limiter.penalty(e.key, points);
        e.local -= points;
        e.known = res.consumedPoints;
      }),
    );
  }
  return due.length > 0;
}
