/** Audit jobs as their owners see them: creation, reads and cancellation. */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { eventRow, json } from './store-rows.ts';
import type { AuditStore } from './store-types.ts';

/** Creating, reusing and cancelling jobs, and their events. */
export function createJobWrites(
  db: Kysely<Database>,
): Pick<AuditStore, 'findReusable' | 'insertJob' | 'addEvent' | 'cancelQueued' | 'requestCancel'> {
  return {
    async findReusable(ownerId, requestHash, now) {
      const row = await db
        .selectFrom('audit_jobs')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('request_hash', '=', requestHash)
        .where('status', '=', 'succeeded')
        .where('freshness_expires_at', '>', now)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ?? null;
    },

    async insertJob(job, targets, event, now) {
      return await db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('audit_jobs')
          .values({
            owner_id: job.ownerId,
            key_id: job.keyId,
            request_hash: job.requestHash,
            request: json(job.request),
            dataset_version: job.datasetVersion,
            seed: job.seed,
            status: 'queued',
            sampling_manifest: json(job.samplingManifest),
            final_interpretation: null,
            freshness_seconds: job.freshnessSeconds,
            freshness_expires_at: null,
            error_detail: null,
            progress: json(job.progress),
            lease_owner: null,
            lease_expires_at: null,
            started_at: null,
            heartbeat_at: null,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        // PostgreSQL allows 65535 parameters per statement: 500 rows of 5 stay far below.
        for (let i = 0; i < targets.length; i += 500) {
          await trx
            .insertInto('audit_targets')
            .values(
              targets.slice(i, i + 500).map((t, k) => ({
                job_id: row.id,
                ordinal: i + k,
                target_kind: 'ip',
                target: t.target,
                sampling_manifest: json(t.samplingManifest),
              })),
            )
            .execute();
        }
        await trx
          .insertInto('audit_events')
          .values(eventRow(row.id, event, now))
          .execute();
        return row;
      });
    },

    async addEvent(jobId, event, now) {
      await db
        .insertInto('audit_events')
        .values(eventRow(jobId, event, now))
        .execute();
    },

    async cancelQueued(jobId, actor, now) {
      return await db.transaction().execute(async (trx) => {
        const r = await trx
          .updateTable('audit_jobs')
          .set({ status: 'cancelled', cancel_requested: 1, updated_at: now })
          .where('id', '=', jobId)
          .where('status', '=', 'queued')
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) !== 1) return false;
        await trx
          .insertInto('audit_events')
          .values([
            eventRow(jobId, { type: 'cancel_requested', actor }, now),
            eventRow(jobId, { type: 'cancelled', actor, detail: { while: 'queued' } }, now),
          ])
          .execute();
        return true;
      });
    },

    async requestCancel(jobId, actor, now) {
      return await db.transaction().execute(async (trx) => {
        const r = await trx
          .updateTable('audit_jobs')
          .set({ cancel_requested: 1, updated_at: now })
          .where('id', '=', jobId)
          .where('status', '=', 'running')
          .where('cancel_requested', '=', 0)
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) !== 1) return false;
        await trx
          .insertInto('audit_events')
          .values(eventRow(jobId, { type: 'cancel_requested', actor }, now))
          .execute();
        return true;
      });
    },
  };
}

/** A job and what it holds. */
export function createJobReads(
  db: Kysely<Database>,
): Pick<AuditStore, 'job' | 'listJobs' | 'targets' | 'observations' | 'events' | 'cancelRequested'> {
  return {
    async job(id, ownerId) {
      let q = db.selectFrom('audit_jobs').selectAll().where('id', '=', id);
      if (ownerId !== null) q = q.where('owner_id', '=', ownerId);
      return (await q.executeTakeFirst()) ?? null;
    },

    async listJobs(ownerId, limit, offset) {
      return await db
        .selectFrom('audit_jobs')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
    },

    async targets(jobId) {
      return await db
        .selectFrom('audit_targets')
        .selectAll()
        .where('job_id', '=', jobId)
        .orderBy('ordinal')
        .execute();
    },

    async observations(jobId) {
      return await db
        .selectFrom('audit_observations')
        .selectAll()
        .where('job_id', '=', jobId)
        .orderBy('id')
        .execute();
    },

    async events(jobId) {
      return await db
        .selectFrom('audit_events')
        .selectAll()
        .where('job_id', '=', jobId)
        .orderBy('id')
        .execute();
    },

    async cancelRequested(jobId) {
      const row = await db
        .selectFrom('audit_jobs')
        .select('cancel_requested')
        .where('id', '=', jobId)
        .executeTakeFirst();
      return row?.cancel_requested === 1;
    },
  };
}
