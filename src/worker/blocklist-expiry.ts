/**
 * Runs the blocklist's expiry regularly, so each expiry is recorded (once, as a `delisted`
 * event with reason `expired`) even when nobody reads the address or the statistics.
 */
import type { Blocklist } from '../blocklist/index.ts';

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
  const timer = setInterval(() => {
    if (running) return;
    runOnce().catch((err: unknown) => options.logger?.warn({ err }, 'blocklist expiry failed'));
  }, options.intervalMs ?? 1000);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => 0);
    },
  };
}
