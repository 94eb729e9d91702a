/**
 * Counts keyed requests in memory and writes them in batches (one transaction per flush),
 * so the hot path never waits on a write. Flushed every `intervalMs` and on close.
 */
import { type Clock, utcDay } from '../core/clock.ts';

export interface UsageSink {
  addUsage(entries: { keyId: number; day: string; requests: number; lastUsedAt: number }[]): Promise<void>;
}

export interface UsageRecorder {
  record(keyId: number): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createUsageRecorder(sink: UsageSink, clock: Clock, intervalMs = 1000): UsageRecorder {
  let pending = new Map<string, { keyId: number; day: string; requests: number; lastUsedAt: number }>();
  let flushing: Promise<void> = Promise.resolve();
  let last: { keyId: number; day: string; requests: number; lastUsedAt: number } | null = null;
  let lastOf = pending;

  const flush = async () => {
    const batch = pending;
    if (batch.size === 0) return flushing;
    pending = new Map();
    flushing = flushing.then(async () => {
      try {
        await sink.addUsage([...batch.values()]);
      } catch {
        // The store is unavailable: put the counts back so they are written by a later flush.
        for (const [k, v] of batch) {
          const cur = pending.get(k);
          if (cur) {
            cur.requests += v.requests;
            cur.lastUsedAt = Math.max(cur.lastUsedAt, v.lastUsedAt);
          } else pending.set(k, v);
        }
      }
    });
    return flushing;
  };

  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();

  return {
    record(keyId) {
      const now = clock();
      const day = utcDay(now);
      // The entry the last record touched, while it is still in the pending batch: a key's
      // successive requests count without building and hashing the map key each time.
      if (last !== null && last.keyId === keyId && last.day === day && lastOf === pending) {
        last.requests += 1;
        last.lastUsedAt = now;
        return;
      }
      const k = `${keyId}|${day}`;
      let cur = pending.get(k);
      if (cur) {
        cur.requests += 1;
        cur.lastUsedAt = now;
      } else {
        cur = { keyId, day, requests: 1, lastUsedAt: now };
        pending.set(k, cur);
      }
      last = cur;
      lastOf = pending;
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
