/** Saves and reads evidence, FCrDNS results and score computations; no rules here. */
import { type Generated, type Kysely, sql } from 'kysely';
import { DAY_MS, utcDay } from '../core/clock.ts';
import {
  BUMP_STAMPS,
  bumpStampsCte,
  bumpStampsIn,
  createPrepared,
  type PreparedSql,
  RAISE_STAMP,
  READ_STAMPS,
  type Store,
  stampKeys,
} from '../store/index.ts';
import type { Database } from '../store/schema.ts';
import type { EvidenceKind } from './evidence.ts';
import type { Computation } from './history.ts';
import { diff, KIND_COLUMN, type RollupDayRow, rollupRows } from './rollup-rows.ts';
import type {
  ComputationRecord,
  EvidenceWindow,
  FcrdnsRecord,
  KindCounts,
  ReputationStore,
} from './store-types.ts';
import { NO_EVENTS, windowDays } from './window.ts';

export type {
  ComputationRecord,
  FcrdnsRecord,
  KindCounts,
  ReputationStore,
} from './store-types.ts';

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

const countOf = (kind: EvidenceKind) => sql.raw(`sum(case when kind = '${kind}' then 1 else 0 end)`);

function fcrdnsRecord(row: ReputationFcrdnsTable): FcrdnsRecord {
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
const Q = {
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

type StoreHandles = Pick<Store, 'db' | 'dialect'> & Partial<Pick<Store, 'sqlite' | 'pgPool'>>;

export function createReputationStore(store: StoreHandles): ReputationStore {
  const db: Kysely<Database> = store.db;
  const prepared = createPrepared(store);
  async function saveAll(cs: readonly ComputationRecord[]): Promise<void> {
    if (cs.length === 0) return;
    // One row per address (the last computation given wins), in a stable order so concurrent
    // writers lock rows in the same order.
    const byIp = new Map(cs.map((c) => [c.ip, c]));
    const list = [...byIp.values()].sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
    const points = list.map((c) => ({
      ip: c.ip,
      day: utcDay(c.computedAt),
      score: c.score,
      level: c.level,
      computed_at: c.computedAt,
    }));
    const latest = list.map((c) => ({
      ip: c.ip,
      subnet: c.subnet,
      score: c.score,
      computed_at: c.computedAt,
    }));
    // A computation dated before the stored one (a clock moved back) never replaces it.
    if (prepared.dialect === 'postgres') {
      await prepared.all(Q.saveBoth, [
        points.map((p) => p.ip),
        points.map((p) => p.day),
        points.map((p) => p.score),
        points.map((p) => p.level),
        points.map((p) => p.computed_at),
        latest.map((l) => l.subnet),
      ]);
      return;
    }
    await prepared.transaction([
      { sql: Q.savePoint, rows: points.map((p) => [p.ip, p.day, p.score, p.level, p.computed_at]) },
      { sql: Q.stampSubnet, rows: latest.map((l) => [l.subnet, l.subnet, l.ip, l.score]) },
      { sql: Q.saveLatest, rows: latest.map((l) => [l.ip, l.subnet, l.score, l.computed_at]) },
    ]);
  }

  return {
    async insertEvidence(events, createdAt) {
      if (events.length === 0) return;
      const { days, firsts } = rollupRows(events);
      if (prepared.dialect === 'postgres') {
        const col = <T, K extends keyof T>(rows: readonly T[], k: K) => rows.map((r) => r[k]);
        await prepared.all(Q.insertEvidenceAll, [
          events.map((e) => e.ip),
          events.map((e) => e.kind),
          events.map((e) => e.observedAt),
          events.map((e) => (e.synthetic ? 1 : 0)),
          events.map((e) => e.source),
          events.map(() => createdAt),
          col(days, 'ip'),
          col(days, 'day'),
          col(days, 'pristine'),
          col(days, 'recycled'),
          col(days, 'typo'),
          col(days, 'honeypot'),
          col(days, 'first_at'),
          col(days, 'last_at'),
          col(firsts, 'ip'),
          col(firsts, 'first_at'),
          stampKeys(events.map((e) => e.ip)),
        ]);
        return;
      }
      await prepared.sqliteWrite((w) => {
        for (const e of events) {
          w.run(Q.insertEvidence, [e.ip, e.kind, e.observedAt, e.synthetic ? 1 : 0, e.source, createdAt]);
        }
        for (const d of days) {
          w.run(Q.upsertDay, [
            d.ip,
            d.day,
            d.pristine,
            d.recycled,
            d.typo,
            d.honeypot,
            d.first_at,
            d.last_at,
          ]);
        }
        for (const f of firsts) w.run(Q.upsertFirst, [f.ip, f.first_at]);
        // The addresses' reputation facts changed (store/stamps.ts).
        w.run(BUMP_STAMPS, [stampKeys(events.map((e) => e.ip))]);
      });
    },

    async evidenceWindow(ips, since, now) {
      const out = new Map<string, EvidenceWindow>();
      if (ips.length === 0) return out;
      const list = [...ips];
      const { fromDay, toDay } = windowDays(since, now);
      // SQLite binds each use of a value; PostgreSQL reuses $n.
      const values =
        prepared.dialect === 'sqlite'
          ? [
              list,
              fromDay,
              toDay,
              since,
              now,
              list,
              fromDay,
              toDay,
              since,
              now,
              since,
              now,
              list,
              list,
              toDay,
              now,
            ]
          : [list, fromDay, toDay, since, now];
      const rows = await prepared.all<
        { part: 'w' | 'c' | 'f' | 'n' } & Omit<
          ReputationEvidenceDaysTable,
          'day' | 'first_at' | 'last_at'
        > & {
            day: number | null;
            first_at: number | null;
            last_at: number | null;
          }
      >(Q.evidenceWindow, values);
      for (const d of rows) {
        let held = out.get(d.ip);
        if (held === undefined) {
          held = {
            firstAt: null,
            inside: { ...NO_EVENTS },
            cut: [],
            insideFirstAt: null,
            futureFirstAt: null,
          };
          out.set(d.ip, held);
        }
        if (d.part === 'f') {
          held.firstAt = Number(d.first_at);
        } else if (d.part === 'n') {
          held.futureFirstAt = Number(d.first_at);
        } else if (d.part === 'w') {
          held.insideFirstAt = Number(d.first_at);
          held.inside = {
            pristine: Number(d.pristine),
            recycled: Number(d.recycled),
            typo: Number(d.typo),
            honeypot: Number(d.honeypot),
          };
        } else {
          held.cut.push({
            day: Number(d.day),
            pristine: Number(d.pristine),
            recycled: Number(d.recycled),
            typo: Number(d.typo),
            honeypot: Number(d.honeypot),
            firstAt: Number(d.first_at),
            lastAt: Number(d.last_at),
          });
        }
      }
      return out;
    },

    async evidenceCounts(ips, from, to) {
      const out = new Map<string, KindCounts>();
      if (ips.length === 0) return out;
      const rows = await db
        .selectFrom('reputation_evidence')
        .select((eb) => ['ip', 'kind', eb.fn.countAll<number>().as('n')])
        .where('ip', 'in', [...ips])
        .where('synthetic', '=', 0)
        .where('observed_at', '>=', from)
        .where('observed_at', '<=', to)
        .groupBy(['ip', 'kind'])
        .execute();
      for (const r of rows) {
        const held = out.get(r.ip) ?? { pristine: 0, recycled: 0, typo: 0, honeypot: 0 };
        held[KIND_COLUMN[r.kind]] += Number(r.n);
        out.set(r.ip, held);
      }
      return out;
    },

    async rollupMismatches() {
      const expected = await sql<RollupDayRow>`
        select ip, observed_at / ${sql.raw(String(DAY_MS))} as day,
          ${countOf('pristine_trap')} as pristine, ${countOf('recycled_trap')} as recycled,
          ${countOf('typo_trap')} as typo, ${countOf('smtp_honeypot')} as honeypot,
          min(observed_at) as first_at, max(observed_at) as last_at
        from reputation_evidence where synthetic = 0
        group by ip, observed_at / ${sql.raw(String(DAY_MS))}`.execute(db);
      const stored = await db.selectFrom('reputation_evidence_days').selectAll().execute();
      const key = (r: RollupDayRow) =>
        [r.ip, r.day, r.pristine, r.recycled, r.typo, r.honeypot, r.first_at, r.last_at]
          .map(String)
          .join(' ');
      const problems = diff(expected.rows.map(key), stored.map(key), 'reputation_evidence_days');
      const firsts = await db
        .selectFrom('reputation_evidence')
        .select((eb) => ['ip', eb.fn.min<number>('observed_at').as('first_at')])
        .where('synthetic', '=', 0)
        .groupBy('ip')
        .execute();
      const storedFirsts = await db.selectFrom('reputation_evidence_ips').selectAll().execute();
      const firstKey = (r: { ip: string; first_at: number }) => `${r.ip} ${Number(r.first_at)}`;
      problems.push(...diff(firsts.map(firstKey), storedFirsts.map(firstKey), 'reputation_evidence_ips'));
      return problems;
    },

    async fcrdnsForMany(ips) {
      const out = new Map<string, FcrdnsRecord>();
      if (ips.length === 0) return out;
      const rows = await prepared.all<ReputationFcrdnsTable>(Q.fcrdns, [[...ips]]);
      for (const row of rows) out.set(row.ip, fcrdnsRecord(row));
      return out;
    },

    async evidenceFor(ip, since) {
      const production = () =>
        db
          .selectFrom('reputation_evidence')
          .select(['kind', 'observed_at'])
          .where('ip', '=', ip)
          .where('synthetic', '=', 0);
      const [recent, earliest] = await Promise.all([
        production().where('observed_at', '>=', since).execute(),
        production()
          .where('observed_at', '<', since)
          .orderBy('observed_at', 'asc')
          .limit(1)
          .executeTakeFirst(),
      ]);
      const rows = earliest === undefined ? recent : [earliest, ...recent];
      return rows.map((r) => ({ kind: r.kind, observedAt: Number(r.observed_at), synthetic: false }));
    },

    async pristineTrapIpsSince(since) {
      const rows = await db
        .selectFrom('reputation_evidence')
        .select('ip')
        .distinct()
        .where('kind', '=', 'pristine_trap')
        .where('synthetic', '=', 0)
        .where('observed_at', '>=', since)
        .execute();
      return rows.map((r) => r.ip);
    },

    async saveFcrdns(r) {
      const row = {
        ip: r.ip,
        ptr_hostname: r.ptrHostname,
        forward_match: r.forwardMatch ? 1 : 0,
        forward_ips: JSON.stringify(r.forwardIps),
        last_checked_at: r.lastCheckedAt,
        last_observed_at: r.lastObservedAt,
      };
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('reputation_fcrdns')
          .values(row)
          .onConflict((oc) => oc.column('ip').doUpdateSet({ ...row }))
          .execute();
        await bumpStampsIn(trx, [r.ip]);
      });
    },

    async fcrdnsFor(ip) {
      const row = await db
        .selectFrom('reputation_fcrdns')
        .selectAll()
        .where('ip', '=', ip)
        .executeTakeFirst();
      return row === undefined ? null : fcrdnsRecord(row);
    },

    async stamps(keys) {
      const out = new Map<string, number>();
      if (keys.length === 0) return out;
      const rows = await prepared.all<{ key: string; stamp: number }>(READ_STAMPS, [[...keys]]);
      for (const r of rows) out.set(r.key, Number(r.stamp));
      return out;
    },

    saveComputations: saveAll,

    async historyForMany(ips, sinceDay) {
      const out = new Map<string, Computation[]>();
      if (ips.length === 0) return out;
      const rows = await prepared.all<{ ip: string; points: string }>(Q.historyMany, [[...ips], sinceDay]);
      for (const r of rows) {
        const list: Computation[] = [];
        let at = 0;
        while (at < r.points.length) {
          const colon = r.points.indexOf(':', at);
          let comma = r.points.indexOf(',', colon);
          if (comma < 0) comma = r.points.length;
          list.push({
            score: Number(r.points.slice(at, colon)),
            computedAt: Number(r.points.slice(colon + 1, comma)),
          });
          at = comma + 1;
        }
        out.set(r.ip, list);
      }
      return out;
    },

    async subnetScoresMany(subnets) {
      const out = new Map<string, { ip: string; score: number; computedAt: number }[]>();
      if (subnets.length === 0) return out;
      const rows = await prepared.all<{ subnet: string; ip: string; score: number; computed_at: number }>(
        Q.subnetMany,
        [[...subnets]],
      );
      for (const r of rows) {
        const list = out.get(r.subnet) ?? [];
        list.push({ ip: r.ip, score: Number(r.score), computedAt: Number(r.computed_at) });
        out.set(r.subnet, list);
      }
      return out;
    },

    async subnetScores(subnet) {
      const rows = await prepared.all<{ ip: string; score: number; computed_at: number }>(Q.subnet, [subnet]);
      return rows.map((r) => ({ ip: r.ip, score: Number(r.score), computedAt: Number(r.computed_at) }));
    },

    async pristineTrapSources(since, until) {
      const rows = await db
        .selectFrom('reputation_evidence')
        .select((eb) => [
          'ip',
          eb.fn.min('observed_at').as('first_seen'),
          eb.fn.max('observed_at').as('last_seen'),
          eb.fn.min('source').as('source'),
        ])
        .where('kind', '=', 'pristine_trap')
        .where('synthetic', '=', 0)
        .where('observed_at', '>=', since)
        .where('observed_at', '<=', until)
        .groupBy('ip')
        .orderBy('ip')
        .execute();
      return rows.map((r) => ({
        ip: r.ip,
        firstSeen: Number(r.first_seen),
        lastSeen: Number(r.last_seen),
        source: r.source ?? null,
      }));
    },
  };
}
