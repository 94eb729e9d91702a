import type { Kysely } from 'kysely';
import { bigIntType, type DialectName } from '../dialect.ts';

/**
 * Webhook alerts of mail operators' reports (issue #38 item 3): per owner and domain, the last
 * aggregate report the alerts were worked out through (new sending sources are those of later
 * reports) and whether the DMARC pass rate was below the threshold then, so a low rate alerts once
 * per crossing. A domain without a row has not been looked at: its reports so far are the baseline.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigIntType(dialect);
  await db.schema
    .createTable('email_report_alerts')
    .addColumn('owner_id', big, (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('checked_id', big, (c) => c.notNull())
    .addColumn('below', 'integer', (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('email_report_alerts_pk', ['owner_id', 'domain'])
    .execute();
}
