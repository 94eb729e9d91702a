/** The reputation tables and the prepared statements of the hot reads and writes (store/prepared.ts). */
import { type Generated, sql } from 'kysely';
import {
  bumpStampsCte,
  type createPrepared,
  type PreparedSql,
  RAISE_STAMP,
  type Store,
} from '../store/index.ts';
import type { EvidenceKind } from './evidence.ts';
import type { RollupDayRow } from './rollup-rows.ts';
import type { FcrdnsRecord } from './store-types.ts';

export interface ReputationEvidenceTable {
  id: Generated<number>;
  ip: string;
  kind: EvidenceKind;
  observed_at: number;
  synthetic: number;
  source: string | null;
  created_at: number;
}

export interface ReputationFcrdnsTable {
  ip: string;
  ptr_hostname: string | null;
  forward_match: number;
  /** JSON array of addresses. */
  forward_ips: string;
  last_checked_at: number;
  last_observed_at: number | null;
}

export interface ReputationComputationsTable {
  ip: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  score: number;
  level: string;
  computed_at: number;
}

export interface ReputationLatestTable {
  ip: string;
  /** The /24 of an IPv4 address; null for IPv6. */
  subnet: string | null;
  score: number;
  computed_at: number;
}

/** Per address: the earliest production evidence (the evidence half of the age anchor). */
export interface ReputationEvidenceIpsTable {
  ip: string;
  first_at: number;
}

/** Per address and UTC day number (epoch ms / 86 400 000): production events by kind. */
export type ReputationEvidenceDaysTable = RollupDayRow;

declare module '../store/schema.ts' {
  interface Database {
    reputation_evidence_ips: ReputationEvidenceIpsTable;
    reputation_evidence_days: ReputationEvidenceDaysTable;
    reputation_evidence: ReputationEvidenceTable;
    reputation_fcrdns: ReputationFcrdnsTable;
    reputation_computations: ReputationComputationsTable;
    reputation_latest: ReputationLatestTable;
  }
}

export const countOf = (kind: EvidenceKind) => sql.raw(`sum(case when kind = '${kind}' then 1 else 0 end)`);

export function fcrdnsRecord(row: ReputationFcrdnsTable): FcrdnsRecord {
  return {
    ip: row.ip,
    ptrHostname: row.ptr_hostname,
    forwardMatch: Number(row.forward_match) === 1,
    forwardIps: JSON.parse(row.forward_ips) as string[],
    lastCheckedAt: Number(row.last_checked_at),
    lastObservedAt: row.last_observed_at === null ? null : Number(row.last_observed_at),
  };
}

const D = 'reputation_evidence_days';
const I = 'reputation_evidence_ips';
const DAY_SET = `pristine = ${D}.pristine + excluded.pristine, recycled = ${D}.recycled + excluded.recycled,
  typo = ${D}.typo + excluded.typo, honeypot = ${D}.honeypot + excluded.honeypot,
  first_at = case when excluded.first_at < ${D}.first_at then excluded.first_at else ${D}.first_at end,
  last_at = case when excluded.last_at > ${D}.last_at then excluded.last_at else ${D}.last_at end`;
const FIRST_SET = `first_at = case when excluded.first_at < ${I}.first_at then excluded.first_at else ${I}.first_at end`;

/** The hot reads and the computation write, prepared once (store/prepared.ts). */
const IN_IPS = { sqlite: 'in (select value from json_each(?))', postgres: '= any($1::text[])' };
export const Q = {
  // The window [since, now] in one read, summed in the database (returning every day's row cost
  // more than the query): part 'w', per address, the events of the days wholly inside; part 'c',
  // the days cut by the window (events on both sides of since or now, see window.ts), whole; part
  // 'f', the address's earliest evidence. Days wholly outside are skipped.
  evidenceWindow: {
    name: 'netrep_rep_evidence_window',
    sqlite: `select 'w' as part, ip, null as day, sum(pristine) as pristine, sum(recycled) as recycled, sum(typo) as typo,
        sum(honeypot) as honeypot, min(first_at) as first_at, null as last_at from reputation_evidence_days
      where ip ${IN_IPS.sqlite} and day >= ? and day <= ? and first_at >= ? and last_at <= ? group by ip
      union all select 'c', ip, day, pristine, recycled, typo, honeypot, first_at, last_at from reputation_evidence_days
      where ip ${IN_IPS.sqlite} and day >= ? and day <= ? and last_at >= ? and first_at <= ? and (first_at < ? or last_at > ?)
      union all select 'f', ip, null, 0, 0, 0, 0, first_at, first_at from reputation_evidence_ips where ip ${IN_IPS.sqlite}
      union all select 'n', ip, null, 0, 0, 0, 0, min(first_at), null from reputation_evidence_days
      where ip ${IN_IPS.sqlite} and day >= ? and first_at > ? group by ip`,
    postgres: `select 'w' as part, ip, null::int as day, sum(pristine) as pristine, sum(recycled) as recycled, sum(typo) as typo,
        sum(honeypot) as honeypot, min(first_at) as first_at, null::bigint as last_at from reputation_evidence_days
      where ip ${IN_IPS.postgres} and day >= $2 and day <= $3 and first_at >= $4 and last_at <= $5 group by ip
      union all select 'c', ip, day, pristine, recycled, typo, honeypot, first_at, last_at from reputation_evidence_days
      where ip ${IN_IPS.postgres} and day >= $2 and day <= $3 and last_at >= $4 and first_at <= $5 and (first_at < $4 or last_at > $5)
      union all select 'f', ip, null, 0, 0, 0, 0, first_at, first_at from reputation_evidence_ips where ip ${IN_IPS.postgres}
      union all select 'n', ip, null, 0, 0, 0, 0, min(first_at), null from reputation_evidence_days
      where ip ${IN_IPS.postgres} and day >= $3 and first_at > $5 group by ip`,
  },
  fcrdns: {
    name: 'netrep_rep_fcrdns',
    sqlite: `select * from reputation_fcrdns where ip ${IN_IPS.sqlite}`,
    postgres: `select * from reputation_fcrdns where ip ${IN_IPS.postgres}`,
  },
  // One row per address, its points as 'score:computed_at,…' (a row per point cost more to hand
  // over than to read: 30 objects per answer).
  historyMany: {
    name: 'netrep_rep_history_many2',
    sqlite: `select ip, group_concat(score || ':' || computed_at) as points from reputation_computations
      where ip ${IN_IPS.sqlite} and day >= ? group by ip`,
    postgres: `select ip, string_agg(score::text || ':' || computed_at::text, ',') as points from reputation_computations
      where ip ${IN_IPS.postgres} and day >= $2 group by ip`,
  },
  subnetMany: {
    name: 'netrep_rep_subnet_many',
    sqlite: `select subnet, ip, score, computed_at from reputation_latest where subnet ${IN_IPS.sqlite}`,
    postgres: `select subnet, ip, score, computed_at from reputation_latest where subnet ${IN_IPS.postgres}`,
  },
  subnet: {
    name: 'netrep_rep_subnet',
    sqlite: 'select ip, score, computed_at from reputation_latest where subnet = ?',
    postgres: 'select ip, score, computed_at from reputation_latest where subnet = $1',
  },
  // SQLite: two statements per computation in one transaction. PostgreSQL: both upserts in one
  // statement over arrays (one round trip for any number of addresses).
  savePoint: {
    name: 'netrep_rep_save_point',
    sqlite: `insert into reputation_computations (ip, day, score, level, computed_at) values (?, ?, ?, ?, ?)
      on conflict (ip, day) do update set score = excluded.score, level = excluded.level, computed_at = excluded.computed_at
      where reputation_computations.computed_at <= excluded.computed_at`,
    postgres: '',
  },
  // A /24 whose member gets a new score (or a new member): the summary of the /24 changed.
  stampSubnet: {
    name: 'netrep_rep_stamp_subnet',
    sqlite: `insert into input_stamps (key, stamp) select ?, 1
      where ? is not null and not exists (select 1 from reputation_latest where ip = ? and score = ?)
      ${RAISE_STAMP}`,
    postgres: '',
  },
  saveLatest: {
    name: 'netrep_rep_save_latest',
    sqlite: `insert into reputation_latest (ip, subnet, score, computed_at) values (?, ?, ?, ?)
      on conflict (ip) do update set subnet = excluded.subnet, score = excluded.score, computed_at = excluded.computed_at
      where reputation_latest.computed_at <= excluded.computed_at`,
    postgres: '',
  },
  // A computation is a history record: a server crash may lose the last fraction of a second of
  // them (the day's point then shows an earlier computation), so its commit does not wait for
  // the WAL flush, which would otherwise dominate every answer's time.
  // Commits without waiting for the WAL flush, in one round trip: set_config(…, true) sets
  // synchronous_commit for this statement's own transaction, and the commit reads it before the
  // transaction's settings are reset (the 'relaxed' CTE is joined so that it runs).
  saveBoth: {
    name: 'netrep_rep_save2',
    sqlite: '',
    postgres: `with relaxed as (select set_config('synchronous_commit', 'off', true) as sc), point as (
        insert into reputation_computations (ip, day, score, level, computed_at)
        select * from unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::bigint[])
        on conflict (ip, day) do update set score = excluded.score, level = excluded.level, computed_at = excluded.computed_at
        where reputation_computations.computed_at <= excluded.computed_at
        returning 1),
      ${bumpStampsCte(
        'stamped',
        `select distinct u.subnet from unnest($1::text[], $6::text[], $3::int[]) as u(ip, subnet, score)
        left join reputation_latest r on r.ip = u.ip
        where u.subnet is not null and (r.ip is null or r.score <> u.score)
        order by u.subnet`,
      )}
      insert into reputation_latest (ip, subnet, score, computed_at)
      select u.ip, u.subnet, u.score, u.computed_at
      from unnest($1::text[], $6::text[], $3::int[], $5::bigint[]) as u(ip, subnet, score, computed_at), relaxed
      on conflict (ip) do update set subnet = excluded.subnet, score = excluded.score, computed_at = excluded.computed_at
      where reputation_latest.computed_at <= excluded.computed_at`,
  },
  // Evidence ingest: the raw rows and their rollups. SQLite: per row in one synchronous
  // transaction; PostgreSQL: one statement over arrays (one round trip, atomic).
  insertEvidence: {
    name: 'netrep_rep_insert_evidence',
    sqlite:
      'insert into reputation_evidence (ip, kind, observed_at, synthetic, source, created_at) values (?, ?, ?, ?, ?, ?)',
    postgres: '',
  },
  upsertDay: {
    name: 'netrep_rep_upsert_day',
    sqlite: `insert into reputation_evidence_days (ip, day, pristine, recycled, typo, honeypot, first_at, last_at)
      values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (ip, day) do update set ${DAY_SET}`,
    postgres: '',
  },
  upsertFirst: {
    name: 'netrep_rep_upsert_first',
    sqlite: `insert into reputation_evidence_ips (ip, first_at) values (?, ?) on conflict (ip) do update set ${FIRST_SET}`,
    postgres: '',
  },
  insertEvidenceAll: {
    name: 'netrep_rep_insert_evidence_all',
    sqlite: '',
    postgres: `with raw as (
        insert into reputation_evidence (ip, kind, observed_at, synthetic, source, created_at)
        select * from unnest($1::text[], $2::text[], $3::bigint[], $4::int[], $5::text[], $6::bigint[])
        returning 1),
      days as (
        insert into reputation_evidence_days (ip, day, pristine, recycled, typo, honeypot, first_at, last_at)
        select * from unnest($7::text[], $8::int[], $9::int[], $10::int[], $11::int[], $12::int[], $13::bigint[], $14::bigint[])
        on conflict (ip, day) do update set ${DAY_SET}
        returning 1),
      ${bumpStampsCte('stamped', 17)}
      insert into reputation_evidence_ips (ip, first_at) select * from unnest($15::text[], $16::bigint[])
      on conflict (ip) do update set ${FIRST_SET}`,
  },
} satisfies Record<string, PreparedSql>;

export type StoreHandles = Pick<Store, 'db' | 'dialect'> & Partial<Pick<Store, 'sqlite' | 'pgPool'>>;
export type Prepared = ReturnType<typeof createPrepared>;
