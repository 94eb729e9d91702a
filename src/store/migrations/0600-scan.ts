import type { Kysely } from 'kysely';
import { bigIntType, type DialectName } from '../dialect.ts';

/**
 * Service scans (issue #34): one row per scanned address, shared by every instance: the stored
 * result with its expiry (`done`, `failed`) or an in-flight claim (`queued`, `running` under a
 * lease). The primary key makes "one scan per address per TTL" a property of the table: a stale
 * row is put back in the queue by one conditional upsert, a queued row claimed by one conditional
 * update. `scan_budget` counts scans started per UTC minute across instances (NETREP_SCAN_RATE).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigIntType(dialect);
  await db.schema
    .createTable('scan_results')
    .addColumn('ip', 'text', (c) => c.primaryKey())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('queued_at', big, (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', big)
    .addColumn('scanned_at', big)
    .addColumn('expires_at', big)
    .addColumn('reason', 'text')
    .addColumn('report', 'text')
    .execute();
  await db.schema
    .createIndex('scan_results_due')
    .on('scan_results')
    .columns(['status', 'queued_at'])
    .execute();
  await db.schema
    .createTable('scan_budget')
    .addColumn('minute', big, (c) => c.primaryKey())
    .addColumn('scans', 'integer', (c) => c.notNull())
    .execute();
}
