import type { Kysely } from 'kysely';
import { addIdColumn, bigIntType, type DialectName } from '../dialect.ts';

/**
 * Mail operators' reports (issue #38): DMARC aggregate, failure and SMTP TLS reports per owner.
 * A report is stored once per owner, kind, reporter and report id (the unique constraint is the
 * dedup); its rows in `email_report_records` are written in the same transaction. Uploads that
 * could not be read are kept in `email_report_rejections` with the reason and the first bytes.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigIntType(dialect);

  await addIdColumn(db.schema.createTable('email_reports'), dialect)
    .addColumn('owner_id', big, (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('org_name', 'text', (c) => c.notNull())
    .addColumn('report_id', 'text', (c) => c.notNull())
    .addColumn('domain', 'text')
    .addColumn('contact', 'text')
    .addColumn('begin_at', big)
    .addColumn('end_at', big)
    // JSON: the policy published (aggregate reports).
    .addColumn('policy', 'text')
    .addColumn('record_count', big, (c) => c.notNull())
    .addColumn('message_count', big, (c) => c.notNull())
    .addColumn('source_format', 'text', (c) => c.notNull())
    .addColumn('received_at', big, (c) => c.notNull())
    .addUniqueConstraint('email_reports_once', ['owner_id', 'kind', 'org_name', 'report_id'])
    .execute();
  await db.schema
    .createIndex('email_reports_owner')
    .on('email_reports')
    .columns(['owner_id', 'id'])
    .execute();

  await addIdColumn(db.schema.createTable('email_report_records'), dialect)
    .addColumn('report_id', big, (c) => c.notNull())
    .addColumn('ordinal', 'integer', (c) => c.notNull())
    // Aggregate rows: typed columns for the views to come (by source, by result).
    .addColumn('source_ip', 'text')
    .addColumn('count', big, (c) => c.notNull())
    .addColumn('disposition', 'text')
    .addColumn('dkim', 'text')
    .addColumn('spf', 'text')
    .addColumn('header_from', 'text')
    // JSON: the rest of the row (aggregate), the failure sample, or the TLS policy.
    .addColumn('detail', 'text', (c) => c.notNull())
    .addUniqueConstraint('email_report_records_order', ['report_id', 'ordinal'])
    .execute();
  await db.schema
    .createIndex('email_report_records_ip')
    .on('email_report_records')
    .column('source_ip')
    .execute();

  await addIdColumn(db.schema.createTable('email_report_rejections'), dialect)
    .addColumn('owner_id', big, (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text')
    .addColumn('size', big, (c) => c.notNull())
    // base64 of the first bytes (text on both dialects).
    .addColumn('raw', 'text', (c) => c.notNull())
    .addColumn('raw_truncated', 'integer', (c) => c.notNull())
    .addColumn('received_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('email_report_rejections_owner')
    .on('email_report_rejections')
    .columns(['owner_id', 'id'])
    .execute();
}
