/**
 * The SQL of the report alerts (alerts.ts): the per-domain state of `email_report_alerts` (0720),
 * the sources of an owner's newer aggregate reports of a domain that none of the earlier names,
 * and the DMARC passes of a window. Both dialects; no rules here.
 */
import { sql } from 'kysely';
import type { Store } from '../store/index.ts';

export interface AlertsTable {
  owner_id: number;
  domain: string;
  checked_id: number;
  below: number;
  updated_at: number;
}

declare module '../store/schema.ts' {
  interface Database {
    email_report_alerts: AlertsTable;
  }
}

const n = (v: unknown): number => Number(v ?? 0);

export interface NewSource {
  source_ip: string;
  messages: number;
  first_report: number;
}

export interface ReportFacts {
  id: number;
  org_name: string;
  report_id: string;
  begin_at: number | null;
  end_at: number | null;
}

export function createAlertStore(store: Store) {
  const { db } = store;
  const reports = (ownerId: number, domain: string) =>
    db
      .selectFrom('email_reports as e')
      .where('e.owner_id', '=', ownerId)
      .where('e.kind', '=', 'aggregate')
      .where('e.domain', '=', domain);
  return {
    async state(ownerId: number, domain: string) {
      const row = await db
        .selectFrom('email_report_alerts')
        .select(['checked_id', 'below'])
        .where('owner_id', '=', ownerId)
        .where('domain', '=', domain)
        .executeTakeFirst();
      return row ? { checkedId: n(row.checked_id), below: n(row.below) === 1 } : null;
    },
    async latest(ownerId: number, domain: string) {
      const row = await reports(ownerId, domain)
        .select((eb) => [eb.fn.max('e.id').as('id'), eb.fn.max('e.end_at').as('end_at')])
        .executeTakeFirst();
      return row?.id === null || row?.id === undefined ? null : { id: n(row.id), endAt: n(row.end_at) };
    },
    /** IPs of the reports after `checkedId` (through `latestId`) that no report up to it names. */
    async newSources(ownerId: number, domain: string, checkedId: number, latestId: number) {
      const rows = await reports(ownerId, domain)
        .innerJoin('email_report_records as r', 'r.report_id', 'e.id')
        .where('e.id', '>', checkedId)
        .where('e.id', '<=', latestId)
        .where('r.source_ip', 'is not', null)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('email_report_records as o')
                .innerJoin('email_reports as oe', 'oe.id', 'o.report_id')
                .select(sql`1`.as('one'))
                .whereRef('o.source_ip', '=', 'r.source_ip')
                .where('oe.owner_id', '=', ownerId)
                .where('oe.kind', '=', 'aggregate')
                .where('oe.domain', '=', domain)
                .where('oe.id', '<=', checkedId),
            ),
          ),
        )
        .select((eb) => [
          'r.source_ip',
          eb.fn.sum('r.count').as('messages'),
          eb.fn.min('e.id').as('first_report'),
        ])
        .groupBy('r.source_ip')
        .orderBy('messages', 'desc')
        .orderBy('r.source_ip')
        .execute();
      return rows.map(
        (r): NewSource => ({
          source_ip: r.source_ip as string,
          messages: n(r.messages),
          first_report: n(r.first_report),
        }),
      );
    },
    async reportFacts(ids: number[]): Promise<Map<number, ReportFacts>> {
      if (ids.length === 0) return new Map();
      const rows = await db
        .selectFrom('email_reports')
        .select(['id', 'org_name', 'report_id', 'begin_at', 'end_at'])
        .where('id', 'in', ids)
        .execute();
      return new Map(
        rows.map((r) => [
          n(r.id),
          {
            ...r,
            id: n(r.id),
            begin_at: r.begin_at === null ? null : n(r.begin_at),
            end_at: r.end_at === null ? null : n(r.end_at),
          },
        ]),
      );
    },
    /** Messages and DMARC passes (aligned DKIM or SPF pass) of the reports begun since `from`. */
    async passes(ownerId: number, domain: string, from: number, latestId: number) {
      const row = await reports(ownerId, domain)
        .innerJoin('email_report_records as r', 'r.report_id', 'e.id')
        .where('e.begin_at', '>=', from)
        .where('e.id', '<=', latestId)
        .select([
          sql<number>`coalesce(sum(r.count), 0)`.as('messages'),
          sql<number>`coalesce(sum(case when r.dkim = 'pass' or r.spf = 'pass' then r.count else 0 end), 0)`.as(
            'pass',
          ),
          sql<number>`count(distinct e.id)`.as('reports'),
        ])
        .executeTakeFirstOrThrow();
      return { messages: n(row.messages), pass: n(row.pass), reports: n(row.reports) };
    },
    /** Inserts or moves the domain's state forward; a check that read older reports never moves it back. */
    async save(row: AlertsTable) {
      await db
        .insertInto('email_report_alerts')
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(['owner_id', 'domain'])
            .doUpdateSet({ checked_id: row.checked_id, below: row.below, updated_at: row.updated_at })
            .where('email_report_alerts.checked_id', '<', row.checked_id),
        )
        .execute();
    },
  };
}

export type AlertStore = ReturnType<typeof createAlertStore>;
