import type { Kysely } from 'kysely';
import { addIdColumn, bigIntType, type DialectName } from '../dialect.ts';

/**
 * The service-owned blocklist (spec §2.4, §3.3, CONTRACT §4): one row per listed address and an
 * append-only event log. A delisting or expiry removes the row and appends a `delisted` event in
 * the same transaction; the event id is also the cursor other instances poll for changes.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigIntType(dialect);
  await db.schema
    .createTable('blocklist_listings')
    .addColumn('ip', 'text', (c) => c.primaryKey())
    .addColumn('family', 'integer', (c) => c.notNull())
    .addColumn('subnet24', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('return_code', 'text', (c) => c.notNull())
    .addColumn('listed_at', big, (c) => c.notNull())
    .addColumn('expires_at', big)
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('blocklist_listings_expires')
    .on('blocklist_listings')
    .column('expires_at')
    .execute();
  await db.schema
    .createIndex('blocklist_listings_subnet24')
    .on('blocklist_listings')
    .column('subnet24')
    .execute();

  await addIdColumn(db.schema.createTable('blocklist_events'), dialect)
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('subnet24', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('return_code', 'text', (c) => c.notNull())
    .addColumn('listed_at', big, (c) => c.notNull())
    .addColumn('expires_at', big)
    .addColumn('delisted_at', big)
    .addColumn('performed_at', big, (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('blocklist_events_recent')
    .on('blocklist_events')
    .columns(['performed_at', 'id'])
    .execute();
  await db.schema
    .createIndex('blocklist_events_action_time')
    .on('blocklist_events')
    .columns(['action', 'performed_at'])
    .execute();
  await db.schema
    .createIndex('blocklist_events_ip_time')
    .on('blocklist_events')
    .columns(['ip', 'performed_at'])
    .execute();
  await db.schema
    .createIndex('blocklist_events_subnet24')
    .on('blocklist_events')
    .columns(['subnet24', 'performed_at'])
    .execute();
}
