/**
 * Fetches and saves reports, their rows and rejected uploads; no rules here. A report and its rows
 * are written in one transaction; the unique (owner, kind, reporter, report id) constraint makes a
 * second copy impossible, so a concurrent duplicate finds the first one's id.
 */
import type { Generated, Kysely, Selectable } from 'kysely';
import type { Store } from '../store/index.ts';
import type { Database } from '../store/schema.ts';

export interface EmailReportsTable {
  id: Generated<number>;
  owner_id: number;
  kind: string;
  org_name: string;
  report_id: string;
  domain: string | null;
  contact: string | null;
  begin_at: number | null;
  end_at: number | null;
  policy: string | null;
  record_count: number;
  message_count: number;
  source_format: string;
  received_at: number;
}

export interface EmailReportRecordsTable {
  id: Generated<number>;
  report_id: number;
  ordinal: number;
  source_ip: string | null;
  count: number;
  disposition: string | null;
  dkim: string | null;
  spf: string | null;
  header_from: string | null;
  detail: string;
}

export interface EmailReportRejectionsTable {
  id: Generated<number>;
  owner_id: number;
  reason: string;
  content_type: string | null;
  size: number;
  raw: string;
  raw_truncated: number;
  received_at: number;
}

declare module '../store/schema.ts' {
  interface Database {
    email_reports: EmailReportsTable;
    email_report_records: EmailReportRecordsTable;
    email_report_rejections: EmailReportRejectionsTable;
  }
}

export type ReportRow = Omit<EmailReportsTable, 'id'> & { id: number };
export type RecordRow = Omit<EmailReportRecordsTable, 'id' | 'report_id'>;
export type RejectionRow = Omit<EmailReportRejectionsTable, 'id'> & { id: number };

export interface Page<T> {
  items: T[];
  total: number;
}

export interface ReportStore {
  /** Stores a report with its rows once; an existing copy's id with `duplicate: true` otherwise. */
  put(report: Omit<ReportRow, 'id'>, records: RecordRow[]): Promise<{ id: number; duplicate: boolean }>;
  reject(row: Omit<RejectionRow, 'id'>): Promise<number>;
  list(ownerId: number, limit: number, offset: number): Promise<Page<ReportRow>>;
  /** One report without its rows. */
  report(ownerId: number, id: number): Promise<ReportRow | null>;
  get(ownerId: number, id: number): Promise<{ report: ReportRow; records: RecordRow[] } | null>;
  rejections(ownerId: number, limit: number, offset: number): Promise<Page<RejectionRow>>;
}

/** Rows per insert: far under SQLite's and PostgreSQL's bound-parameter limits at 9 columns. */
const CHUNK = 500;

const num = (v: unknown): number => Number(v);

/** One page of an owner's rows of `table`, newest first, and how many there are in all. */
async function ownerPage<T extends 'email_reports' | 'email_report_rejections'>(
  db: Kysely<Database>,
  table: T,
  ownerId: number,
  limit: number,
  offset: number,
) {
  const owned = db.selectFrom(table as 'email_reports').where('owner_id', '=', ownerId);
  const [items, total] = await Promise.all([
    owned.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    owned.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: items as unknown as Selectable<Database[T]>[], total };
}

function reportOf(r: ReportRow): ReportRow {
  return {
    ...r,
    id: num(r.id),
    owner_id: num(r.owner_id),
    begin_at: r.begin_at === null ? null : num(r.begin_at),
    end_at: r.end_at === null ? null : num(r.end_at),
    record_count: num(r.record_count),
    message_count: num(r.message_count),
    received_at: num(r.received_at),
  };
}

async function findId(db: Kysely<Database>, r: Omit<ReportRow, 'id'>): Promise<number | null> {
  const row = await db
    .selectFrom('email_reports')
    .select('id')
    .where('owner_id', '=', r.owner_id)
    .where('kind', '=', r.kind)
    .where('org_name', '=', r.org_name)
    .where('report_id', '=', r.report_id)
    .executeTakeFirst();
  return row ? num(row.id) : null;
}

export function createReportStore(store: Store): ReportStore {
  const { db } = store;
  const findReport = async (ownerId: number, id: number): Promise<ReportRow | null> => {
    const report = await db
      .selectFrom('email_reports')
      .selectAll()
      .where('owner_id', '=', ownerId)
      .where('id', '=', id)
      .executeTakeFirst();
    return report ? reportOf(report as ReportRow) : null;
  };
  return {
    async put(report, records) {
      const stored = await db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('email_reports')
          .values(report)
          .onConflict((oc) => oc.columns(['owner_id', 'kind', 'org_name', 'report_id']).doNothing())
          .returning('id')
          .executeTakeFirst();
        if (!inserted) return null;
        const id = num(inserted.id);
        for (let i = 0; i < records.length; i += CHUNK)
          await trx
            .insertInto('email_report_records')
            .values(records.slice(i, i + CHUNK).map((r) => ({ ...r, report_id: id })))
            .execute();
        return id;
      });
      if (stored !== null) return { id: stored, duplicate: false };
      const existing = await findId(db, report);
      if (existing === null) throw new Error('email report: conflict without a stored row');
      return { id: existing, duplicate: true };
    },
    async reject(row) {
      const inserted = await db
        .insertInto('email_report_rejections')
        .values(row)
        .returning('id')
        .executeTakeFirstOrThrow();
      return num(inserted.id);
    },
    async list(ownerId, limit, offset) {
      const { items, total } = await ownerPage(db, 'email_reports', ownerId, limit, offset);
      return { items: items.map((r) => reportOf(r as ReportRow)), total: num(total.n) };
    },
    report: findReport,
    async get(ownerId, id) {
      const report = await findReport(ownerId, id);
      if (!report) return null;
      const records = await db
        .selectFrom('email_report_records')
        .select(['ordinal', 'source_ip', 'count', 'disposition', 'dkim', 'spf', 'header_from', 'detail'])
        .where('report_id', '=', id)
        .orderBy('ordinal')
        .execute();
      return {
        report,
        records: records.map((r) => ({ ...r, ordinal: num(r.ordinal), count: num(r.count) })),
      };
    },
    async rejections(ownerId, limit, offset) {
      const { items, total } = await ownerPage(db, 'email_report_rejections', ownerId, limit, offset);
      return {
        items: items.map((r) => ({
          ...r,
          id: num(r.id),
          owner_id: num(r.owner_id),
          size: num(r.size),
          raw_truncated: num(r.raw_truncated),
          received_at: num(r.received_at),
        })),
        total: num(total.n),
      };
    },
  };
}
