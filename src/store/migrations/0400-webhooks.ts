import { type Kysely, sql } from 'kysely';
import { addIdColumn, bigIntType, type DialectName } from '../dialect.ts';

/**
 * Saved IPs and signed webhooks (spec §6, CONTRACT §11). An event is stored per owner; a
 * delivery row (the outbox) per event and webhook, written in the transaction that stores the
 * event; every attempt is logged. Cursors remember how far the change logs other modules keep
 * (blocklist events, graduation events) were turned into events.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigIntType(dialect);

  await db.schema
    .createTable('saved_ips')
    .addColumn('owner_id', big, (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('saved_ips_pk', ['owner_id', 'ip'])
    .execute();
  await db.schema.createIndex('saved_ips_ip').on('saved_ips').column('ip').execute();

  // The last lookup state seen per saved address (threat level, flags), diffed on dataset reload.
  await db.schema
    .createTable('saved_ip_states')
    .addColumn('ip', 'text', (c) => c.primaryKey())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('dataset_version', big)
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();

  await addIdColumn(db.schema.createTable('webhooks'), dialect)
    .addColumn('owner_id', big, (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_owner').on('webhooks').column('owner_id').execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', big, (c) => c.notNull())
    // What caused the event (`blocklist:<event id>:<owner>`, …): stored once however often it is read.
    .addColumn('origin', 'text', (c) => c.notNull().unique())
    .addColumn('entity_type', 'text', (c) => c.notNull())
    .addColumn('source_key', 'text', (c) => c.notNull())
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('occurred_at', big, (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_events_created').on('webhook_events').column('created_at').execute();

  await addIdColumn(db.schema.createTable('webhook_deliveries'), dialect)
    .addColumn('webhook_id', big, (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', big, (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .addUniqueConstraint('webhook_deliveries_once', ['webhook_id', 'event_id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();

  await addIdColumn(db.schema.createTable('webhook_attempts'), dialect)
    .addColumn('delivery_id', big, (c) => c.notNull())
    .addColumn('webhook_id', big, (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('attempted_at', big, (c) => c.notNull())
    .addColumn('next_attempt_at', big)
    .execute();
  await db.schema
    .createIndex('webhook_attempts_hook')
    .on('webhook_attempts')
    .columns(['webhook_id', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_cursors')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('position', big, (c) => c.notNull())
    .execute();

  // Changes from here on become events; the history before this migration is not replayed.
  await sql`insert into webhook_cursors (name, position) select 'blocklist_events', coalesce(max(id), 0) from blocklist_events`.execute(
    db,
  );
  await sql`insert into webhook_cursors (name, position) select 'graduation_events', coalesce(max(id), 0) from graduation_events`.execute(
    db,
  );
}
