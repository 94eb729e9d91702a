/**
 * The SQL of the per-domain views (issue #38 item 2): sums over the typed columns of
 * `email_report_records` for one owner, domain and period, on SQLite and PostgreSQL alike. A
 * period is [from, to) in epoch ms over the report's begin; failure reports have none and are
 * filtered on their arrival here (received_at). No rules here: views.ts shapes the answers.
 */
import { sql } from 'kysely';
import type { Store } from '../store/index.ts';

const DAY_MS = 86_400_000;

export interface Scope {
  ownerId: number;
  domain: string;
  /** Epoch ms, inclusive. */
  from: number;
  /** Epoch ms, exclusive. */
  to: number;
}

/** Message sums of a set of aggregate rows. */
export interface Sums {
  messages: number;
  dmarc_pass: number;
  spf_aligned_pass: number;
  dkim_aligned_pass: number;
  none: number;
  quarantine: number;
  reject: number;
  pass: number;
}

export interface IpSums extends Sums {
  source_ip: string;
}

export interface DomainRow {
  domain: string;
  reports: number;
  aggregate_reports: number;
  failure_reports: number;
  tls_reports: number;
  first_begin: number | null;
  last_end: number | null;
}

export interface ViewStore {
  /** The latest begin of the domain's reports of `kind` (TLS: any policy of the domain). */
  latestBegin(ownerId: number, domain: string, kind: 'aggregate' | 'tls'): Promise<number | null>;
  totals(scope: Scope): Promise<Sums & { reports: number }>;
  daily(scope: Scope): Promise<{ day: number; messages: number; dmarc_pass: number }[]>;
  reporters(scope: Scope): Promise<{ org_name: string; reports: number; messages: number }[]>;
  policies(scope: Scope): Promise<{ policy: string | null; reports: number }[]>;
  /** Rows whose policy was overridden (a reason given): their count and detail JSON. */
  overridden(scope: Scope): Promise<{ count: number; detail: string }[]>;
  /** Sums by source IP, most messages first; a page when `page` is given, else every IP. */
  byIp(scope: Scope, page?: { limit: number; offset: number }): Promise<{ rows: IpSums[]; total: number }>;
  /** The reporters that saw each IP (of `ips`, or every IP when absent). */
  ipReporters(scope: Scope, ips?: string[]): Promise<{ source_ip: string; org_name: string }[]>;
  domains(ownerId: number, limit: number, offset: number): Promise<{ rows: DomainRow[]; total: number }>;
  /** Messages and DMARC passes of the owner's aggregate rows, by domain. */
  domainPasses(
    ownerId: number,
    domains: string[],
  ): Promise<{ domain: string; messages: number; dmarc_pass: number }[]>;
  /** Failure samples, newest first; the period filters on arrival when given. */
  failures(
    ownerId: number,
    domain: string,
    period: { from: number; to: number } | null,
    limit: number,
    offset: number,
  ): Promise<{
    rows: { id: number; org_name: string; received_at: number; detail: string }[];
    total: number;
  }>;
  /** The TLS policies (detail JSON) of the domain's TLS reports in the period, with their reporter. */
  tlsPolicies(scope: Scope): Promise<{ report: number; org_name: string; detail: string }[]>;
}

const n = (v: unknown): number => Number(v ?? 0);

/** `sum(count)` of the rows where `cond` holds (raw SQL over the `r` alias of the rows). */
const sumWhen = (cond: string) =>
  sql<number>`coalesce(sum(case when ${sql.raw(cond)} then r.count else 0 end), 0)`;

/** The message sums of the selected rows (the DMARC pass: aligned DKIM or SPF pass). */
const SUMS = [
  sql<number>`coalesce(sum(r.count), 0)`.as('messages'),
  sumWhen("r.dkim = 'pass' or r.spf = 'pass'").as('dmarc_pass'),
  sumWhen("r.spf = 'pass'").as('spf_aligned_pass'),
  sumWhen("r.dkim = 'pass'").as('dkim_aligned_pass'),
  sumWhen("r.disposition = 'none'").as('none'),
  sumWhen("r.disposition = 'quarantine'").as('quarantine'),
  sumWhen("r.disposition = 'reject'").as('reject'),
  sumWhen("r.disposition = 'pass'").as('pass'),
] as const;

function sumsRow(row: Record<string, unknown>): Sums {
  return {
    messages: n(row.messages),
    dmarc_pass: n(row.dmarc_pass),
    spf_aligned_pass: n(row.spf_aligned_pass),
    dkim_aligned_pass: n(row.dkim_aligned_pass),
    none: n(row.none),
    quarantine: n(row.quarantine),
    reject: n(row.reject),
    pass: n(row.pass),
  };
}

type Db = Store['db'];

// A validated domain holds only [a-z0-9.-]: nothing LIKE reads as a pattern.
const tlsRows = (db: Db, ownerId: number, domain: string) =>
  db
    .selectFrom('email_reports as e')
    .innerJoin('email_report_records as r', 'r.report_id', 'e.id')
    .where('e.owner_id', '=', ownerId)
    .where('e.kind', '=', 'tls')
    .where('r.detail', 'like', `%"policy_domain":${JSON.stringify(domain)}%`);

type AggregateViews = Pick<
  ViewStore,
  'latestBegin' | 'totals' | 'daily' | 'reporters' | 'policies' | 'overridden' | 'byIp' | 'ipReporters'
>;

/** The views of one domain's aggregate rows in a period. */
function aggregateViews(db: Db): AggregateViews {
  const reports = (s: Scope, kind = 'aggregate') =>
    db
      .selectFrom('email_reports as e')
      .where('e.owner_id', '=', s.ownerId)
      .where('e.kind', '=', kind)
      .where('e.domain', '=', s.domain)
      .where('e.begin_at', '>=', s.from)
      .where('e.begin_at', '<', s.to);
  const rows = (s: Scope) =>
    db
      .selectFrom('email_reports as e')
      .innerJoin('email_report_records as r', 'r.report_id', 'e.id')
      .where('e.owner_id', '=', s.ownerId)
      .where('e.kind', '=', 'aggregate')
      .where('e.domain', '=', s.domain)
      .where('e.begin_at', '>=', s.from)
      .where('e.begin_at', '<', s.to);

  return {
    async latestBegin(ownerId, domain, kind) {
      const q =
        kind === 'tls'
          ? tlsRows(db, ownerId, domain).select((eb) => eb.fn.max('e.begin_at').as('latest'))
          : db
              .selectFrom('email_reports as e')
              .where('e.owner_id', '=', ownerId)
              .where('e.kind', '=', kind)
              .where('e.domain', '=', domain)
              .select((eb) => eb.fn.max('e.begin_at').as('latest'));
      const row = await q.executeTakeFirst();
      return row?.latest === null || row?.latest === undefined ? null : n(row.latest);
    },
    async totals(s) {
      const [sums, count] = await Promise.all([
        rows(s).select(SUMS).executeTakeFirstOrThrow(),
        reports(s)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { ...sumsRow(sums as Record<string, unknown>), reports: n(count.n) };
    },
    async daily(s) {
      const day = sql<number>`e.begin_at / ${sql.lit(DAY_MS)}`;
      const out = await rows(s)
        .select([day.as('day'), SUMS[0], SUMS[1]])
        .groupBy(day)
        .orderBy(day)
        .execute();
      return out.map((r) => {
        const row = r as Record<string, unknown>;
        return { day: n(row.day), messages: n(row.messages), dmarc_pass: n(row.dmarc_pass) };
      });
    },
    async reporters(s) {
      const out = await reports(s)
        .select((eb) => [
          'e.org_name',
          eb.fn.countAll().as('reports'),
          eb.fn.sum('e.message_count').as('messages'),
        ])
        .groupBy('e.org_name')
        .orderBy('e.org_name')
        .execute();
      return out.map((r) => ({ org_name: r.org_name, reports: n(r.reports), messages: n(r.messages) }));
    },
    async policies(s) {
      const out = await reports(s)
        .select((eb) => ['e.policy', eb.fn.countAll().as('reports')])
        .groupBy('e.policy')
        .execute();
      return out.map((r) => ({ policy: r.policy, reports: n(r.reports) }));
    },
    async overridden(s) {
      // rows.ts writes the rest of a row with `reasons` first: `{"reasons":[],…` when there are none.
      const out = await rows(s)
        .select(['r.count', 'r.detail'])
        .where('r.detail', 'not like', '{"reasons":[],%')
        .execute();
      return out.map((r) => ({ count: n(r.count), detail: r.detail }));
    },
    async byIp(s, page) {
      const messages = sql<number>`coalesce(sum(r.count), 0)`;
      let q = rows(s)
        .where('r.source_ip', 'is not', null)
        .select(['r.source_ip', ...SUMS])
        .groupBy('r.source_ip')
        .orderBy(messages, 'desc')
        .orderBy('r.source_ip');
      if (page) q = q.limit(page.limit).offset(page.offset);
      const [out, total] = await Promise.all([
        q.execute(),
        page
          ? rows(s).select(sql<number>`count(distinct r.source_ip)`.as('n')).executeTakeFirstOrThrow()
          : null,
      ]);
      const list = out.map((r) => {
        const row = r as Record<string, unknown>;
        return { source_ip: String(row.source_ip), ...sumsRow(row) };
      });
      return { rows: list, total: total ? n((total as { n: unknown }).n) : list.length };
    },
    async ipReporters(s, ips) {
      if (ips?.length === 0) return [];
      let q = rows(s).where('r.source_ip', 'is not', null);
      if (ips) q = q.where('r.source_ip', 'in', ips);
      const out = await q.select(['r.source_ip', 'e.org_name']).distinct().execute();
      return out.map((r) => ({ source_ip: String(r.source_ip), org_name: r.org_name }));
    },
  };
}

/** The owner's domains, failure samples and TLS policies. */
function ownerViews(db: Db): Omit<ViewStore, keyof AggregateViews> {
  return {
    async domains(ownerId, limit, offset) {
      const owned = db
        .selectFrom('email_reports as e')
        .where('e.owner_id', '=', ownerId)
        .where('e.domain', 'is not', null);
      const kindCount = (kind: string) =>
        sql<number>`coalesce(sum(case when e.kind = ${kind} then 1 else 0 end), 0)`;
      const [out, total] = await Promise.all([
        owned
          .select((eb) => [
            'e.domain',
            eb.fn.countAll().as('reports'),
            kindCount('aggregate').as('aggregate_reports'),
            kindCount('failure').as('failure_reports'),
            kindCount('tls').as('tls_reports'),
            eb.fn.min('e.begin_at').as('first_begin'),
            eb.fn.max('e.end_at').as('last_end'),
          ])
          .groupBy('e.domain')
          .orderBy('e.domain')
          .limit(limit)
          .offset(offset)
          .execute(),
        owned.select(sql<number>`count(distinct e.domain)`.as('n')).executeTakeFirstOrThrow(),
      ]);
      return {
        rows: out.map((r) => ({
          domain: String(r.domain),
          reports: n(r.reports),
          aggregate_reports: n(r.aggregate_reports),
          failure_reports: n(r.failure_reports),
          tls_reports: n(r.tls_reports),
          first_begin: r.first_begin === null ? null : n(r.first_begin),
          last_end: r.last_end === null ? null : n(r.last_end),
        })),
        total: n(total.n),
      };
    },
    async domainPasses(ownerId, domains) {
      if (domains.length === 0) return [];
      const out = await db
        .selectFrom('email_reports as e')
        .innerJoin('email_report_records as r', 'r.report_id', 'e.id')
        .where('e.owner_id', '=', ownerId)
        .where('e.kind', '=', 'aggregate')
        .where('e.domain', 'in', domains)
        .select(['e.domain', SUMS[0], SUMS[1]])
        .groupBy('e.domain')
        .execute();
      return out.map((r) => ({
        domain: String(r.domain),
        messages: n(r.messages),
        dmarc_pass: n(r.dmarc_pass),
      }));
    },
    async failures(ownerId, domain, period, limit, offset) {
      let q = db
        .selectFrom('email_reports as e')
        .innerJoin('email_report_records as r', 'r.report_id', 'e.id')
        .where('e.owner_id', '=', ownerId)
        .where('e.kind', '=', 'failure')
        .where('e.domain', '=', domain);
      if (period) q = q.where('e.received_at', '>=', period.from).where('e.received_at', '<', period.to);
      const [out, total] = await Promise.all([
        q
          .select(['e.id', 'e.org_name', 'e.received_at', 'r.detail'])
          .orderBy('e.received_at', 'desc')
          .orderBy('e.id', 'desc')
          .orderBy('r.ordinal')
          .limit(limit)
          .offset(offset)
          .execute(),
        q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
      ]);
      return {
        rows: out.map((r) => ({
          id: n(r.id),
          org_name: r.org_name,
          received_at: n(r.received_at),
          detail: r.detail,
        })),
        total: n(total.n),
      };
    },
    async tlsPolicies(s) {
      const out = await tlsRows(db, s.ownerId, s.domain)
        .where('e.begin_at', '>=', s.from)
        .where('e.begin_at', '<', s.to)
        .select(['e.id', 'e.org_name', 'r.detail'])
        .orderBy('e.id')
        .orderBy('r.ordinal')
        .execute();
      return out.map((r) => ({ report: n(r.id), org_name: r.org_name, detail: r.detail }));
    },
  };
}

export function createViewStore(store: Store): ViewStore {
  return { ...aggregateViews(store.db), ...ownerViews(store.db) };
}
