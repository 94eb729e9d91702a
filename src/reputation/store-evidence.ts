/**
 * The evidence rows: the write of new evidence with its day rollups, the window read every score
 * needs, and the reads of the admin and audit views.
 */
import { type Kysely, sql } from 'kysely';
import { DAY_MS } from '../core/clock.ts';
import { BUMP_STAMPS, stampKeys } from '../store/index.ts';
import type { Database } from '../store/schema.ts';
import { diff, KIND_COLUMN, type RollupDayRow, rollupRows } from './rollup-rows.ts';
import { countOf, type Prepared, Q, type ReputationEvidenceDaysTable } from './store-sql.ts';
import type { EvidenceWindow, KindCounts, ReputationStore } from './store-types.ts';
import { NO_EVENTS, windowDays } from './window.ts';

/** One row of the window read (store-sql.ts Q.evidenceWindow). */
type WindowRow = { part: 'w' | 'c' | 'f' | 'n' } & Omit<
  ReputationEvidenceDaysTable,
  'day' | 'first_at' | 'last_at'
> & {
    day: number | null;
    first_at: number | null;
    last_at: number | null;
  };

/** Adds one row of the window read to the address's window in `out`. */
function foldWindowRow(out: Map<string, EvidenceWindow>, d: WindowRow): void {
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

/** Writes evidence and its rollups in one transaction (one statement on PostgreSQL). */
export function createEvidenceWrites(prepared: Prepared): Pick<ReputationStore, 'insertEvidence'> {
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
  };
}

/** The reads a score needs: the window, the counts, an address's events. */
export function createEvidenceReads(
  db: Kysely<Database>,
  prepared: Prepared,
): Pick<ReputationStore, 'evidenceWindow' | 'evidenceCounts' | 'evidenceFor'> {
  return {
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
      const rows = await prepared.all<WindowRow>(Q.evidenceWindow, values);
      for (const d of rows) foldWindowRow(out, d);
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
  };
}

/** The reads of the audit views: pristine-trap sources and the rollup check. */
export function createEvidenceAudits(
  db: Kysely<Database>,
): Pick<ReputationStore, 'rollupMismatches' | 'pristineTrapIpsSince' | 'pristineTrapSources'> {
  return {
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
