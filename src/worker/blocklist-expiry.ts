/**
 * Runs the blocklist's expiry regularly, so each expiry is recorded (once, as a `delisted`
 * event with reason `expired`) even when nobody reads the address or the statistics.
 */
import type { Blocklist } from '../blocklist/index.ts';
import { schedule } from './schedule.ts';

export interface ExpiryWorkerLogger {
  warn(obj: object, msg?: string): void;
}

export interface ExpiryWorker {
  /** Runs one pass now (tests call this after moving the clock). */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export function startExpiryWorker(options: {
  blocklist: Blocklist;
  intervalMs?: number;
  /** false: no timer (an API-only instance); runOnce still works. */
  scheduled?: boolean;
  logger?: ExpiryWorkerLogger;
}): ExpiryWorker {
  let running: Promise<number> | null = null;
  const runOnce = async (): Promise<number> => {
    while (running) await running.catch(() => 0);
    running = options.blocklist.expireDue().finally(() => {
      running = null;
    });
    return await running;
  };
  const timer = schedule(
    () => {
      if (running) return;
      runOnce().catch((err: unknown) => options.logger?.warn({ err }, 'blocklist expiry failed'));
    },
    { intervalMs: options.intervalMs ?? 1000, enabled: options.scheduled },
  );
  return {
    runOnce,
    async stop() {
      timer.cancel();
      await running?.catch(() => 0);
    },
  };
}
