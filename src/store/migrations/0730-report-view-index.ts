import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * The report views (issue #38 item 2) read one owner's reports of one kind and domain over a
 * period of begin times: an index in that order, so an owner with years of reports for many
 * domains is not read whole for one domain's month.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createIndex('email_reports_domain_period')
    .on('email_reports')
    .columns(['owner_id', 'kind', 'domain', 'begin_at'])
    .execute();
}
