import type { Kysely } from 'kysely';
import { addIdColumn, bigIntType, type DialectName } from '../dialect.ts';

/**
 * Reputation evidence, telemetry, FCrDNS results, score history, pool classifications and
 * graduation events (spec §2.5, §2.6, §2.9, §6; CONTRACT §4, §7).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigIntType(dialect);

  await addIdColumn(db.schema.createTable('reputation_evidence'), dialect)
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('observed_at', big, (c) => c.notNull())
    .addColumn('synthetic', 'integer', (c) => c.notNull())
    .addColumn('source', 'text')
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('reputation_evidence_ip_time')
    .on('reputation_evidence')
    .columns(['ip', 'observed_at'])
    .execute();

  await addIdColumn(db.schema.createTable('telemetry_observations'), dialect)
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('bounce_rate', 'double precision')
    .addColumn('complaint_rate', 'double precision')
    .addColumn('volume_24h', big)
    .addColumn('observed_at', big, (c) => c.notNull())
    .addColumn('key_id', big)
    .addColumn('owner_id', big)
    .addColumn('synthetic', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('received_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('telemetry_observations_ip_time')
    .on('telemetry_observations')
    .columns(['ip', 'observed_at'])
    .execute();

  await db.schema
    .createTable('reputation_fcrdns')
    .addColumn('ip', 'text', (c) => c.primaryKey())
    .addColumn('ptr_hostname', 'text')
    .addColumn('forward_match', 'integer', (c) => c.notNull())
    .addColumn('forward_ips', 'text', (c) => c.notNull())
    .addColumn('last_checked_at', big, (c) => c.notNull())
    .addColumn('last_observed_at', big)
    .execute();

  // One row per address and UTC day: the last computation of that day (CONTRACT §7).
  await db.schema
    .createTable('reputation_computations')
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('score', 'integer', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('computed_at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('reputation_computations_pk', ['ip', 'day'])
    .execute();

  // The latest score of each address, by /24, for the subnet summary.
  await db.schema
    .createTable('reputation_latest')
    .addColumn('ip', 'text', (c) => c.primaryKey())
    .addColumn('subnet', 'text')
    .addColumn('score', 'integer', (c) => c.notNull())
    .addColumn('computed_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('reputation_latest_subnet').on('reputation_latest').column('subnet').execute();

  await db.schema
    .createTable('pool_classifications')
    .addColumn('owner_id', big, (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('reputation_score', 'integer', (c) => c.notNull())
    .addColumn('warmup_status', 'text', (c) => c.notNull())
    .addColumn('listed', 'integer', (c) => c.notNull())
    .addColumn('fcrdns_status', 'text', (c) => c.notNull())
    .addColumn('first_classified_at', big, (c) => c.notNull())
    .addColumn('classified_at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('pool_classifications_pk', ['owner_id', 'ip'])
    .execute();

  await addIdColumn(db.schema.createTable('graduation_events'), dialect)
    .addColumn('owner_id', big, (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('entity_type', 'text', (c) => c.notNull())
    .addColumn('source_key', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('occurred_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('graduation_events_owner_time')
    .on('graduation_events')
    .columns(['owner_id', 'occurred_at'])
    .execute();
  await db.schema
    .createIndex('graduation_events_time')
    .on('graduation_events')
    .column('occurred_at')
    .execute();
}
