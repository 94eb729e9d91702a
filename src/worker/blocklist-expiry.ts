/**
 * Runs the blocklist's expiry regularly, so each expiry is recorded (once, as a `delisted`
 * event with reason `expired`) even when nobody reads the address or the statistics.
 */
import type { Blocklist } from '../blocklist/index.ts';
import { serialPass } from './schedule.ts';

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
  return serialPass(() => options.blocklist.expireDue(), {
    intervalMs: options.intervalMs ?? 1000,
    enabled: options.scheduled,
    onError: (err) => options.logger?.warn({ err }, 'blocklist expiry failed'),
  });
}
