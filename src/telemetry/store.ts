/** Saves and reads telemetry observations and their per-address summary; no rules here. */
import type { Generated, Kysely } from 'kysely';
import {
  BUMP_STAMPS,
  bumpStampsCte,
  createPrepared,
  type PreparedSql,
  type Store,
  stampKeys,
} from '../store/index.ts';
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

/**
 * Per address: the earliest, the latest and the first sending (volume_24h > 0) production
 * observation, ties broken by id exactly as the raw queries order them. Written in the
 * transaction that inserts the observations (migration 0201).
 */
export interface TelemetryIpSummaryTable {
  ip: string;
  earliest_at: number | null;
  earliest_id: number | null;
  earliest_bounce: number | null;
  earliest_complaint: number | null;
  earliest_volume: number | null;
  latest_at: number | null;
  latest_id: number | null;
  latest_bounce: number | null;
  latest_complaint: number | null;
  latest_volume: number | null;
  sending_at: number | null;
  sending_id: number | null;
  sending_bounce: number | null;
  sending_complaint: number | null;
  sending_volume: number | null;
}

declare module '../store/schema.ts' {
  interface Database {
    telemetry_observations: TelemetryObservationsTable;
    telemetry_ip_summary: TelemetryIpSummaryTable;
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
  /** From the per-address summary (one row). */
  factsFor(ip: string): Promise<TelemetryFacts>;
  /** The same for many addresses in one query; an address without production rows is absent. */
  factsForMany(ips: readonly string[]): Promise<Map<string, TelemetryFacts>>;
  /** The same facts read from the raw observations (the check that the summary is right). */
  rawFactsFor(ip: string): Promise<TelemetryFacts>;
  /** Addresses holding a summary row or production observations (for the rollup check). */
  summarizedIps(): Promise<string[]>;
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

const EMPTY_FACTS: TelemetryFacts = { latest: null, earliest: null, firstSending: null };

type Summary = Omit<TelemetryIpSummaryTable, 'ip'>;
type Which = 'earliest' | 'latest' | 'sending';

function summaryObservation(r: Summary, which: Which): StoredObservation | null {
  const at = r[`${which}_at`];
  if (at === null) return null;
  const num = (v: number | null) => (v === null ? null : Number(v));
  return {
    observedAt: Number(at),
    bounceRate: num(r[`${which}_bounce`]),
    complaintRate: num(r[`${which}_complaint`]),
    volume24h: num(r[`${which}_volume`]),
    synthetic: false,
  };
}

function summaryFacts(r: Summary): TelemetryFacts {
  return {
    latest: summaryObservation(r, 'latest'),
    earliest: summaryObservation(r, 'earliest'),
    firstSending: summaryObservation(r, 'sending'),
  };
}

interface InsertedRow {
  id: number;
  ip: string;
  observed_at: number;
  bounce_rate: number | null;
  complaint_rate: number | null;
  volume_24h: number | null;
}

/** (observed_at, id) order, the order of the raw queries. */
const before = (a: InsertedRow, b: InsertedRow) =>
  Number(a.observed_at) < Number(b.observed_at) ||
  (Number(a.observed_at) === Number(b.observed_at) && Number(a.id) < Number(b.id));

// The stored row is replaced by the new candidate only when it comes first (earliest, sending)
// or last (latest) in (observed_at, id) order; every SET expression sees the old row.
const T = 'telemetry_ip_summary';
const REPLACE: Record<Which, string> = {
  earliest: `excluded.earliest_at < ${T}.earliest_at or (excluded.earliest_at = ${T}.earliest_at and excluded.earliest_id < ${T}.earliest_id)`,
  latest: `excluded.latest_at > ${T}.latest_at or (excluded.latest_at = ${T}.latest_at and excluded.latest_id > ${T}.latest_id)`,
  sending: `excluded.sending_at is not null and (${T}.sending_at is null or excluded.sending_at < ${T}.sending_at or (excluded.sending_at = ${T}.sending_at and excluded.sending_id < ${T}.sending_id))`,
};
const WHICH = ['earliest', 'latest', 'sending'] as const;
const PARTS = ['at', 'id', 'bounce', 'complaint', 'volume'] as const;
const SUMMARY_COLUMNS = WHICH.flatMap((w) => PARTS.map((p) => `${w}_${p}`));
const SUMMARY_SET = WHICH.flatMap((w) =>
  PARTS.map((p) => `${w}_${p} = case when ${REPLACE[w]} then excluded.${w}_${p} else ${T}.${w}_${p} end`),
).join(', ');

/** The summary candidates of freshly inserted production rows, one per address, by address. */
function summaryRows(inserted: readonly InsertedRow[]) {
  const byIp = new Map<string, { earliest: InsertedRow; latest: InsertedRow; sending: InsertedRow | null }>();
  for (const r of inserted) {
    const held = byIp.get(r.ip);
    const sends = r.volume_24h !== null && Number(r.volume_24h) > 0;
    if (held === undefined) {
      byIp.set(r.ip, { earliest: r, latest: r, sending: sends ? r : null });
      continue;
    }
    if (before(r, held.earliest)) held.earliest = r;
    if (before(held.latest, r)) held.latest = r;
    if (sends && (held.sending === null || before(r, held.sending))) held.sending = r;
  }
  // Addresses in a stable order, so concurrent writers lock summary rows in the same order.
  return [...byIp]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([ip, c]) => [
      ip,
      ...WHICH.flatMap((w) => {
        const r = c[w];
        return r === null
          ? [null, null, null, null, null]
          : [Number(r.observed_at), Number(r.id), r.bounce_rate, r.complaint_rate, r.volume_24h];
      }),
    ]);
}

/**
 * Ingest: the raw rows and the summary. SQLite: per row in one synchronous transaction (ids from
 * the inserts); PostgreSQL: one statement, the summary candidates picked in SQL from the rows the
 * insert returns, so a request is one round trip.
 */
const INSERT_OBSERVATION: PreparedSql = {
  name: 'netrep_telemetry_insert',
  sqlite: `insert into telemetry_observations (ip, bounce_rate, complaint_rate, volume_24h, observed_at, key_id, owner_id, synthetic, received_at)
    values (?, ?, ?, ?, ?, ?, ?, 0, ?)`,
  postgres: '',
};
const UPSERT_SUMMARY: PreparedSql = {
  name: 'netrep_telemetry_upsert_summary',
  sqlite: `insert into ${T} (ip, ${SUMMARY_COLUMNS.join(', ')}) values (${['?', ...SUMMARY_COLUMNS.map(() => '?')].join(', ')})
    on conflict (ip) do update set ${SUMMARY_SET}`,
  postgres: '',
};
const pick = (alias: string, order: string, filter = '') =>
  `${alias} as (select distinct on (ip) ip, observed_at, id, bounce_rate, complaint_rate, volume_24h from raw${filter} order by ip, ${order})`;
const INSERT_ALL: PreparedSql = {
  name: 'netrep_telemetry_insert_all',
  sqlite: '',
  postgres: `with raw as (
      insert into telemetry_observations (ip, bounce_rate, complaint_rate, volume_24h, observed_at, key_id, owner_id, synthetic, received_at)
      select ip, b, c, v, t, $6::bigint, $7::bigint, 0, $8::bigint
      from unnest($1::text[], $2::float8[], $3::float8[], $4::bigint[], $5::bigint[]) as x(ip, b, c, v, t)
      returning id, ip, observed_at, bounce_rate, complaint_rate, volume_24h),
    ${pick('e', 'observed_at asc, id asc')},
    ${pick('l', 'observed_at desc, id desc')},
    ${pick('s', 'observed_at asc, id asc', ' where volume_24h > 0')},
    ${bumpStampsCte('stamped', 9)}
    insert into ${T} (ip, ${SUMMARY_COLUMNS.join(', ')})
    select e.ip, ${['e', 'l', 's'].flatMap((a) => [`${a}.observed_at`, `${a}.id`, `${a}.bounce_rate`, `${a}.complaint_rate`, `${a}.volume_24h`]).join(', ')}
    from e join l on l.ip = e.ip left join s on s.ip = e.ip
    order by e.ip
    on conflict (ip) do update set ${SUMMARY_SET}`,
};

/** The summary read of the reputation hot path, prepared once (store/prepared.ts). */
const SUMMARY: PreparedSql = {
  name: 'netrep_telemetry_summary',
  sqlite: 'select * from telemetry_ip_summary where ip in (select value from json_each(?))',
  postgres: 'select * from telemetry_ip_summary where ip = any($1::text[])',
};

export function createTelemetryStore(
  store: Pick<Store, 'db' | 'dialect'> & Partial<Pick<Store, 'sqlite' | 'pgPool'>>,
): TelemetryStore {
  const db: Kysely<Database> = store.db;
  const prepared = createPrepared(store);
  const columns = ['observed_at', 'bounce_rate', 'complaint_rate', 'volume_24h', 'synthetic'] as const;
  const production = (ip: string) =>
    db.selectFrom('telemetry_observations').select(columns).where('ip', '=', ip).where('synthetic', '=', 0);
  const factsForMany = async (ips: readonly string[]): Promise<Map<string, TelemetryFacts>> => {
    const out = new Map<string, TelemetryFacts>();
    if (ips.length === 0) return out;
    const rows = await prepared.all<TelemetryIpSummaryTable>(SUMMARY, [[...ips]]);
    for (const r of rows) out.set(r.ip, summaryFacts(r));
    return out;
  };
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
      if (prepared.dialect === 'postgres') {
        await prepared.all(INSERT_ALL, [
          observations.map((o) => o.ip),
          observations.map((o) => o.bounceRate),
          observations.map((o) => o.complaintRate),
          observations.map((o) => o.volume24h),
          observations.map((o) => o.observedAt),
          by.keyId,
          by.ownerId,
          receivedAt,
          stampKeys(observations.map((o) => o.ip)),
        ]);
        return;
      }
      await prepared.sqliteWrite((w) => {
        const inserted: InsertedRow[] = rows.map((r) => ({
          id: w.run(INSERT_OBSERVATION, [
            r.ip,
            r.bounce_rate,
            r.complaint_rate,
            r.volume_24h,
            r.observed_at,
            r.key_id,
            r.owner_id,
            r.received_at,
          ]).lastInsertRowid,
          ip: r.ip,
          observed_at: r.observed_at,
          bounce_rate: r.bounce_rate,
          complaint_rate: r.complaint_rate,
          volume_24h: r.volume_24h,
        }));
        for (const row of summaryRows(inserted)) w.run(UPSERT_SUMMARY, row);
        // The addresses' reputation facts changed (store/stamps.ts).
        w.run(BUMP_STAMPS, [stampKeys(observations.map((o) => o.ip))]);
      });
    },
    async factsFor(ip) {
      return (await factsForMany([ip])).get(ip) ?? EMPTY_FACTS;
    },
    factsForMany,
    async summarizedIps() {
      const rows = await db
        .selectFrom('telemetry_ip_summary')
        .select('ip')
        .union(db.selectFrom('telemetry_observations').select('ip').where('synthetic', '=', 0))
        .execute();
      return rows.map((r) => r.ip);
    },
    async rawFactsFor(ip) {
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
