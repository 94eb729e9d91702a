/**
 * Per-minute buckets in process memory (issue 18): a fixed window per subject, like
 * rate-limiter-flexible's `RateLimiterMemory` (the window opens at the subject's first request
 * and lasts `durationMs` on real time), without its timer per subject. An anonymous route sees a
 * new client address on almost every request, and one `setTimeout` per address, alive for a
 * minute, is garbage the collector walks again and again. Here windows sit in two maps: those
 * opened since the last rotation and those opened in the period before. A rotation happens at
 * most once per `durationMs` and drops the older map whole: every window in it opened at least
 * `durationMs` ago, so it has closed. No timers, no sweeping loop; at most two periods of
 * subjects are held.
 */
export interface WindowCount {
  /** Requests counted in the current window, this one included. */
  consumed: number;
  /** Milliseconds until the window closes. */
  msBeforeNext: number;
}

export interface MemoryWindow {
  consume(subject: string): WindowCount;
  /** Windows held (open or not yet dropped); for tests. */
  size(): number;
}

interface Entry {
  consumed: number;
  expiresAt: number;
}

export function createMemoryWindow(durationMs: number, now: () => number = Date.now): MemoryWindow {
  let current = new Map<string, Entry>();
  let previous = new Map<string, Entry>();
  let rotateAt = now() + durationMs;

  return {
    consume(subject) {
      const t = now();
      if (t >= rotateAt) {
        // Every window in `previous` opened before the last rotation, at least durationMs ago.
        previous = t >= rotateAt + durationMs ? new Map() : current;
        current = new Map();
        rotateAt = t + durationMs;
      }
      const held = current.get(subject) ?? previous.get(subject);
      if (held !== undefined && held.expiresAt > t) {
        held.consumed++;
        return { consumed: held.consumed, msBeforeNext: held.expiresAt - t };
      }
      if (held !== undefined) previous.delete(subject);
      current.set(subject, { consumed: 1, expiresAt: t + durationMs });
      return { consumed: 1, msBeforeNext: durationMs };
    },
    size: () => current.size + previous.size,
  };
}
