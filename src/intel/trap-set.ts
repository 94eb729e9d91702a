/**
 * The in-memory set behind the threat score's trap signal: addresses with production
 * pristine-trap evidence in the last 30 days, re-read periodically and after evidence ingest.
 */
import type { Clock } from '../core/clock.ts';

export const TRAP_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

export interface TrapSet {
  has(ip: string): boolean;
  /** Re-reads the set now; concurrent calls share one read. */
  refresh(): Promise<void>;
  close(): void;
}

export function createTrapSet(options: {
  /** Addresses with production pristine-trap evidence observed at or after `since`. */
  read(since: number): Promise<string[]>;
  clock: Clock;
  /** Periodic refresh (default 60 s; 0 disables the timer). */
  refreshMs?: number;
  onError?: (err: Error) => void;
}): TrapSet {
  let ips = new Set<string>();
  let running: Promise<void> | null = null;
  let again = false;
  const readOnce = async (): Promise<void> => {
    try {
      ips = new Set(await options.read(options.clock() - TRAP_WINDOW_MS));
    } catch (err) {
      options.onError?.(err as Error);
    }
  };
  const refresh = (): Promise<void> => {
    if (running) {
      // A refresh asked for during a read runs once more after it (fresh evidence is seen).
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await readOnce();
      } while (again);
    })().finally(() => {
      running = null;
    });
    return running;
  };
  const every = options.refreshMs ?? 60_000;
  const timer = every > 0 ? setInterval(() => void refresh(), every) : null;
  timer?.unref();
  return {
    has: (ip) => ips.has(ip),
    refresh,
    close: () => {
      if (timer) clearInterval(timer);
    },
  };
}
