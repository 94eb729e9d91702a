/** What this process's scanning did since start, read by /metrics at scrape time. */
import type { PortOutcome } from './types.ts';

export type RefusalKind = 'not_public' | 'excluded' | 'quota';

export interface ScanCounts {
  /** Scans finished, by `done` / `failed`. */
  scans: Record<'done' | 'failed', number>;
  /** Probes by how they ended. */
  ports: Partial<Record<PortOutcome, number>>;
  /** Lookups whose address was not scanned, by why. */
  refusals: Record<RefusalKind, number>;
  /** Claimed scans put back because NETREP_SCAN_RATE was reached this minute. */
  deferred: number;
  /** Scans queued by lookups. */
  queued: number;
  /** Queue writes the store refused (the lookup had answered; the next one queues again). */
  queueFailures: number;
}

export function createCounts(): ScanCounts {
  return {
    scans: { done: 0, failed: 0 },
    ports: {},
    refusals: { not_public: 0, excluded: 0, quota: 0 },
    deferred: 0,
    queued: 0,
    queueFailures: 0,
  };
}
