/**
 * Runs the service scan's queue (issue #34) in `serve` and `worker`: each pass claims queued
 * scans (several instances share the queue: claims skip each other's rows on PostgreSQL) and runs
 * them until none is due or NETREP_SCAN_RATE is reached for the minute. Nothing runs while
 * NETREP_SCAN is off.
 */
import type { Scan } from '../scan/index.ts';
import { type SerialPass, serialPass } from './schedule.ts';

export interface ScanWorkerLogger {
  warn(obj: object, msg?: string): void;
}

export type ScanWorker = Pick<SerialPass<number>, 'runOnce' | 'stop'>;

export function startScanWorker(options: {
  scan: Scan;
  scheduled?: boolean;
  intervalMs?: number;
  logger?: ScanWorkerLogger;
}): ScanWorker {
  return serialPass((stopping) => options.scan.runDue(stopping), {
    intervalMs: options.intervalMs ?? 1000,
    enabled: options.scheduled !== false && options.scan.enabled,
    onError: (err) => options.logger?.warn({ err }, 'service scan pass failed'),
  });
}
