import type { Clock } from '../core/clock.ts';
import type { Store } from '../store/index.ts';
import { createTelemetryStore, type Submitter, type TelemetryStore } from './store.ts';
import type { IngestResult } from './types.ts';
import { validateIngest } from './validate.ts';

/** Ingest, and the store's reads (documented on TelemetryStore) as the rest of netrep uses them. */
export interface Telemetry
  extends Pick<TelemetryStore, 'factsFor' | 'factsForMany' | 'rawFactsFor' | 'summarizedIps'> {
  /**
   * POST /v1/email/telemetry/ingest: validates each observation on its own (rule 3) and
   * writes the accepted ones of this request in one transaction.
   */
  ingest(body: unknown, by: Submitter): Promise<IngestResult>;
  /** TelemetryStore.recentSenders, at most 100 000 unless `limit` says (the daily FCrDNS check walks them). */
  recentSenders(sinceMs: number, limit?: number): Promise<{ ip: string; lastObservedAt: number }[]>;
}

export function createTelemetry(options: { store: Store; clock: Clock }): Telemetry {
  const rows: TelemetryStore = createTelemetryStore(options.store);
  return {
    async ingest(body, by) {
      const now = options.clock();
      const { observations, result } = validateIngest(body, now);
      await rows.insertBatch(observations, by, now);
      return result;
    },
    factsFor: (ip) => rows.factsFor(ip),
    factsForMany: (ips) => rows.factsForMany(ips),
    rawFactsFor: (ip) => rows.rawFactsFor(ip),
    summarizedIps: () => rows.summarizedIps(),
    recentSenders: (sinceMs, limit = 100_000) => rows.recentSenders(sinceMs, limit),
  };
}
