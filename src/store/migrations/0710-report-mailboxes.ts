import type { Kysely } from 'kysely';
import { bigIntType, type DialectName } from '../dialect.ts';

/**
 * The IMAP poller of mail operators' reports (issue #38 item 1): one row per mailbox
 * (`imaps://user@host:993/INBOX`, never the password) holding the lease of the instance polling
 * it, so that of several instances sharing the store only one reads a mailbox at a time. The row
 * is taken by one conditional update (free, expired, or already this worker's).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigIntType(dialect);
  await db.schema
    .createTable('email_report_mailboxes')
    .addColumn('mailbox', 'text', (c) => c.primaryKey())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', big)
    .addColumn('polled_at', big)
    .execute();
}
