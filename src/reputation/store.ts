/** Saves and reads evidence, FCrDNS results and score computations; no rules here. */
import type { Generated, Kysely } from 'kysely';
import { utcDay } from '../core/clock.ts';
import type { Database } from '../store/schema.ts';
import type { EvidenceEvent, EvidenceKind } from './evidence.ts';
import type { EvidenceInput } from './evidence-input.ts';
import type { Computation } from './history.ts';

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

declare module '../store/schema.ts' {
  interface Database {
    reputation_evidence: ReputationEvidenceTable;
    reputation_fcrdns: ReputationFcrdnsTable;
    reputation_computations: ReputationComputationsTable;
    reputation_latest: ReputationLatestTable;
  }
}

/** A stored FCrDNS observation (CONTRACT §7: written by audit probes and the daily check). */
export interface FcrdnsRecord {
  ip: string;
  ptrHostname: string | null;
  forwardMatch: boolean;
  forwardIps: string[];
  lastCheckedAt: number;
  lastObservedAt: number | null;
}

export interface ComputationRecord {
  ip: string;
  subnet: string | null;
  score: number;
  level: string;
  computedAt: number;
}

/** One address confirmed by pristine trap hits: the earliest and latest hit in the window asked for. */
export interface PristineTrapSource {
  ip: string;
  firstSeen: number;
  lastSeen: number;
  /** The reporting source (smallest name when several reported it); null when none was given. */
  source: string | null;
}

export interface ReputationStore {
  /** Writes all events of one request in one transaction. */
  insertEvidence(events: readonly EvidenceInput[], createdAt: number): Promise<void>;
  /**
   * The address's production evidence observed at or after `since`, plus its earliest
   * production event (the age anchor) when that is older.
   */
  evidenceFor(ip: string, since: number): Promise<EvidenceEvent[]>;
  /** Distinct addresses with production pristine-trap evidence observed at or after `since`. */
  pristineTrapIpsSince(since: number): Promise<string[]>;
  saveFcrdns(record: FcrdnsRecord): Promise<void>;
  fcrdnsFor(ip: string): Promise<FcrdnsRecord | null>;
  /** Stores a computation: the day's point (last one of the day wins) and the latest score. */
  saveComputation(c: ComputationRecord): Promise<void>;
  /** Stored daily points of an address from `sinceDay` (YYYY-MM-DD) on. */
  historyFor(ip: string, sinceDay: string): Promise<Computation[]>;
  /** Latest scores of the addresses of one /24. */
  subnetScores(subnet: string): Promise<{ ip: string; score: number }[]>;
  /** Production (non-synthetic) pristine trap hits observed in [since, until], one row per address, by ip. */
  pristineTrapSources(since: number, until: number): Promise<PristineTrapSource[]>;
}

export function createReputationStore(db: Kysely<Database>): ReputationStore {
  return {
    async insertEvidence(events, createdAt) {
      if (events.length === 0) return;
      const rows = events.map((e) => ({
        ip: e.ip,
        kind: e.kind,
        observed_at: e.observedAt,
        synthetic: e.synthetic ? 1 : 0,
        source: e.source,
        created_at: createdAt,
      }));
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('reputation_evidence').values(rows).execute();
      });
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
      await db
        .insertInto('reputation_fcrdns')
        .values(row)
        .onConflict((oc) => oc.column('ip').doUpdateSet({ ...row }))
        .execute();
    },

    async fcrdnsFor(ip) {
      const row = await db
        .selectFrom('reputation_fcrdns')
        .selectAll()
        .where('ip', '=', ip)
        .executeTakeFirst();
      if (row === undefined) return null;
      return {
        ip: row.ip,
        ptrHostname: row.ptr_hostname,
        forwardMatch: Number(row.forward_match) === 1,
        forwardIps: JSON.parse(row.forward_ips) as string[],
        lastCheckedAt: Number(row.last_checked_at),
        lastObservedAt: row.last_observed_at === null ? null : Number(row.last_observed_at),
      };
    },

    async saveComputation(c) {
      const point = {
        ip: c.ip,
        day: utcDay(c.computedAt),
        score: c.score,
        level: c.level,
        computed_at: c.computedAt,
      };
      const latest = { ip: c.ip, subnet: c.subnet, score: c.score, computed_at: c.computedAt };
      await db.transaction().execute(async (trx) => {
        // A computation dated before the stored one (a clock moved back) never replaces it.
        await trx
          .insertInto('reputation_computations')
          .values(point)
          .onConflict((oc) =>
            oc
              .columns(['ip', 'day'])
              .doUpdateSet({ score: c.score, level: c.level, computed_at: c.computedAt })
              .where('reputation_computations.computed_at', '<=', c.computedAt),
          )
          .execute();
        await trx
          .insertInto('reputation_latest')
          .values(latest)
          .onConflict((oc) =>
            oc
              .column('ip')
              .doUpdateSet({ subnet: c.subnet, score: c.score, computed_at: c.computedAt })
              .where('reputation_latest.computed_at', '<=', c.computedAt),
          )
          .execute();
      });
    },

    async historyFor(ip, sinceDay) {
      const rows = await db
        .selectFrom('reputation_computations')
        .select(['score', 'computed_at'])
        .where('ip', '=', ip)
        .where('day', '>=', sinceDay)
        .execute();
      return rows.map((r) => ({ score: Number(r.score), computedAt: Number(r.computed_at) }));
    },

    async subnetScores(subnet) {
      const rows = await db
        .selectFrom('reputation_latest')
        .select(['ip', 'score'])
        .where('subnet', '=', subnet)
        .execute();
      return rows.map((r) => ({ ip: r.ip, score: Number(r.score) }));
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
