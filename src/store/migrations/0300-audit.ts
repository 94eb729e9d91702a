import type { Kysely } from 'kysely';
import { addIdColumn, bigIntType, type DialectName } from '../dialect.ts';

/**
 * Audit jobs, their sampled targets, observations and events (SERVICE-SPEC §2.11, §3.4;
 * CONTRACT §10). JSON fields are text; times epoch ms. One observation per job, target, kind and
 * source: a worker that takes a job over skips what is stored (the unique index makes it certain).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigIntType(dialect);

  await addIdColumn(db.schema.createTable('audit_jobs'), dialect)
    .addColumn('owner_id', big, (c) => c.notNull())
    .addColumn('key_id', big)
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('dataset_version', big, (c) => c.notNull())
    .addColumn('seed', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('sampling_manifest', 'text', (c) => c.notNull())
    .addColumn('final_interpretation', 'text')
    .addColumn('freshness_seconds', 'integer')
    .addColumn('freshness_expires_at', big)
    .addColumn('error_detail', 'text')
    .addColumn('progress', 'text', (c) => c.notNull())
    .addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', big)
    .addColumn('started_at', big)
    .addColumn('heartbeat_at', big)
    .addColumn('created_at', big, (c) => c.notNull())
    .addColumn('updated_at', big, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_jobs_owner_hash')
    .on('audit_jobs')
    .columns(['owner_id', 'request_hash', 'status'])
    .execute();
  await db.schema.createIndex('audit_jobs_owner_id').on('audit_jobs').columns(['owner_id', 'id']).execute();
  await db.schema.createIndex('audit_jobs_status').on('audit_jobs').columns(['status', 'id']).execute();

  await addIdColumn(db.schema.createTable('audit_targets'), dialect)
    .addColumn('job_id', big, (c) => c.notNull())
    .addColumn('ordinal', 'integer', (c) => c.notNull())
    .addColumn('target_kind', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('sampling_manifest', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_targets_job')
    .on('audit_targets')
    .columns(['job_id', 'ordinal'])
    .unique()
    .execute();

  await addIdColumn(db.schema.createTable('audit_observations'), dialect)
    .addColumn('job_id', big, (c) => c.notNull())
    .addColumn('target_id', big, (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('observation_kind', 'text', (c) => c.notNull())
    .addColumn('source_key', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('raw_codes', 'text', (c) => c.notNull())
    .addColumn('raw_provider_response', 'text', (c) => c.notNull())
    .addColumn('observed_at', big, (c) => c.notNull())
    .addColumn('expires_at', big)
    .execute();
  await db.schema
    .createIndex('audit_observations_once')
    .on('audit_observations')
    .columns(['job_id', 'target_id', 'observation_kind', 'source_key'])
    .unique()
    .execute();

  await addIdColumn(db.schema.createTable('audit_events'), dialect)
    .addColumn('job_id', big, (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('created_at', big, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_events_job').on('audit_events').columns(['job_id', 'id']).execute();
}
