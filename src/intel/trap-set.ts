/**
 * The in-memory set behind the threat score's trap signal: addresses with production
 * pristine-trap evidence in the last 30 days. Evidence ingested by this instance is added as it
 * is accepted; a periodic re-read (every minute) drops what left the window and picks up what
 * other instances ingested. (Re-reading the whole set after every ingest made a steady stream of
 * evidence a steady stream of full scans that grew with the evidence.)
 */
import type { Clock } from '../core/clock.ts';

export const TRAP_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

export interface TrapSet {
  has(ip: string): boolean;
  /** Adds the addresses of pristine-trap hits this instance just stored (those inside the window). */
  add(hits: readonly { ip: string; observedAt: number }[]): void;
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
  /** Addresses added while a read is running: the read may have started before they were stored. */
  let addedDuringRead: string[] | null = null;
  const readOnce = async (): Promise<void> => {
    addedDuringRead = [];
    try {
      const next = new Set(await options.read(options.clock() - TRAP_WINDOW_MS));
      for (const ip of addedDuringRead) next.add(ip);
      ips = next;
    } catch (err) {
      options.onError?.(err as Error);
    } finally {
      addedDuringRead = null;
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
    // Asked for every address the IP answer cache serves: an empty set answers without hashing it.
    has: (ip) => ips.size > 0 && ips.has(ip),
    add: (hits) => {
      const since = options.clock() - TRAP_WINDOW_MS;
      for (const { ip, observedAt } of hits) {
        if (observedAt < since) continue;
        ips.add(ip);
        addedDuringRead?.push(ip);
      }
    },
    refresh,
    close: () => {
      if (timer) clearInterval(timer);
    },
  };
}
