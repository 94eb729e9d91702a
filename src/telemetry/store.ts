/** Saves and reads telemetry observations; no rules here. */
import type { Generated, Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { Observation } from './types.ts';

export interface TelemetryObservationsTable {
  id: Generated<number>;
  ip: string;
  bounce_rate: number | null;
  complaint_rate: number | null;
  volume_24h: number | null;
  observed_at: number;
  key_id: number | null;
  owner_id: number | null;
  /** 1 for synthetic rows (tests, fixtures); ingest always writes 0. */
  synthetic: Generated<number>;
  received_at: number;
}

declare module '../store/schema.ts' {
  interface Database {
    telemetry_observations: TelemetryObservationsTable;
  }
}

/** A stored observation as the reputation and warm-up rules read it. */
export interface StoredObservation {
  observedAt: number;
  bounceRate: number | null;
  complaintRate: number | null;
  volume24h: number | null;
  synthetic: boolean;
}

/** Who sent a batch: the key and its owner. */
export interface Submitter {
  keyId: number;
  ownerId: number;
}

/** The production observations that matter for one address. */
export interface TelemetryFacts {
  /** The most recent production observation (telemetry signals, CONTRACT §7). */
  latest: StoredObservation | null;
  /** The earliest production observation (age anchor). */
  earliest: StoredObservation | null;
  /** The earliest production observation with volume_24h > 0 (warm-up day 1). */
  firstSending: StoredObservation | null;
}

export interface TelemetryStore {
  /** Writes every observation of one request in one transaction: all or none. */
  insertBatch(observations: readonly Observation[], by: Submitter, receivedAt: number): Promise<void>;
  factsFor(ip: string): Promise<TelemetryFacts>;
  /** Addresses with production observations since `sinceMs`, with their latest observation time. */
  recentSenders(sinceMs: number, limit: number): Promise<{ ip: string; lastObservedAt: number }[]>;
}

type Row = Pick<
  TelemetryObservationsTable,
  'observed_at' | 'bounce_rate' | 'complaint_rate' | 'volume_24h'
> & { synthetic: number };

function toStored(row: Row | undefined): StoredObservation | null {
  if (row === undefined) return null;
  return {
    observedAt: Number(row.observed_at),
    bounceRate: row.bounce_rate === null ? null : Number(row.bounce_rate),
    complaintRate: row.complaint_rate === null ? null : Number(row.complaint_rate),
    volume24h: row.volume_24h === null ? null : Number(row.volume_24h),
    synthetic: Number(row.synthetic) === 1,
  };
}

export function createTelemetryStore(db: Kysely<Database>): TelemetryStore {
  const columns = ['observed_at', 'bounce_rate', 'complaint_rate', 'volume_24h', 'synthetic'] as const;
  const production = (ip: string) =>
    db.selectFrom('telemetry_observations').select(columns).where('ip', '=', ip).where('synthetic', '=', 0);
  return {
    async insertBatch(observations, by, receivedAt) {
      if (observations.length === 0) return;
      const rows = observations.map((o) => ({
        ip: o.ip,
        bounce_rate: o.bounceRate,
        complaint_rate: o.complaintRate,
        volume_24h: o.volume24h,
        observed_at: o.observedAt,
        key_id: by.keyId,
        owner_id: by.ownerId,
        synthetic: 0,
        received_at: receivedAt,
      }));
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('telemetry_observations').values(rows).execute();
      });
    },
    async factsFor(ip) {
      const [latest, earliest, firstSending] = await Promise.all([
        production(ip).orderBy('observed_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst(),
        production(ip).orderBy('observed_at', 'asc').orderBy('id', 'asc').limit(1).executeTakeFirst(),
        production(ip)
          .where('volume_24h', '>', 0)
          .orderBy('observed_at', 'asc')
          .orderBy('id', 'asc')
          .limit(1)
          .executeTakeFirst(),
      ]);
      return { latest: toStored(latest), earliest: toStored(earliest), firstSending: toStored(firstSending) };
    },
    async recentSenders(sinceMs, limit) {
      const rows = await db
        .selectFrom('telemetry_observations')
        .select(['ip', (eb) => eb.fn.max('observed_at').as('last')])
        .where('synthetic', '=', 0)
        .where('observed_at', '>=', sinceMs)
        .groupBy('ip')
        .orderBy('ip')
        .limit(limit)
        .execute();
      return rows.map((r) => ({ ip: r.ip, lastObservedAt: Number(r.last) }));
    },
  };
}
