import type { Clock } from '../core/clock.ts';
import type { Store } from '../store/index.ts';
import { createTelemetryStore, type Submitter, type TelemetryFacts, type TelemetryStore } from './store.ts';
import type { IngestResult } from './types.ts';
import { validateIngest } from './validate.ts';

export interface Telemetry {
  /**
   * POST /v1/email/telemetry/ingest: validates each observation on its own (rule 3) and
   * writes the accepted ones of this request in one transaction.
   */
  ingest(body: unknown, by: Submitter): Promise<IngestResult>;
  /** The production observations that matter for one address (from the per-address summary). */
  factsFor(ip: string): Promise<TelemetryFacts>;
  /** The same for many addresses in one read; an address never observed in production is absent. */
  factsForMany(ips: readonly string[]): Promise<Map<string, TelemetryFacts>>;
  /** The same facts computed from the raw observations (rollup check, tests). */
  rawFactsFor(ip: string): Promise<TelemetryFacts>;
  /** Addresses with a summary row or production observations (rollup check). */
  summarizedIps(): Promise<string[]>;
  /** Addresses with production telemetry since `sinceMs` (the daily FCrDNS check walks them). */
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
