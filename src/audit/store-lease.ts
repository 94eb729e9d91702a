/** Workers' side of audit jobs: claiming with a lease, heartbeats, release and the end. */
import type { Kysely, Updateable } from 'kysely';
import { type DialectName, supportsSkipLocked } from '../store/index.ts';
import type { Database } from '../store/schema.ts';
import { eventRow, json } from './store-rows.ts';
import type { AuditJobsTable, AuditStore, Claimed } from './store-types.ts';

/** An update of job `jobId` that takes only while `worker` holds its running lease. */
function whileLeased(
  db: Kysely<Database>,
  jobId: number,
  worker: string,
  values: Updateable<AuditJobsTable>,
) {
  return db
    .updateTable('audit_jobs')
    .set(values)
    .where('id', '=', jobId)
    .where('status', '=', 'running')
    .where('lease_owner', '=', worker);
}

/** AuditStore.claim (store-types.ts). */
export async function claimJob(
  db: Kysely<Database>,
  dialect: DialectName,
  worker: string,
  now: number,
  leaseMs: number,
  onlyJobId: number | undefined,
): Promise<Claimed | null> {
  return await db.transaction().execute(async (trx) => {
    let due = trx
      .selectFrom('audit_jobs')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb('status', '=', 'queued'),
          eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<=', now)]),
        ]),
      )
      .orderBy('id')
      .limit(1);
    if (onlyJobId !== undefined) due = due.where('id', '=', onlyJobId);
    const found = await (supportsSkipLocked(dialect) ? due.forUpdate().skipLocked() : due).executeTakeFirst();
    if (!found) return null;
    // The condition is repeated so that, on SQLite, a second process that read the same row loses.
    const r = await trx
      .updateTable('audit_jobs')
      .set({
        status: 'running',
        lease_owner: worker,
        lease_expires_at: now + leaseMs,
        heartbeat_at: now,
        started_at: found.started_at ?? now,
        updated_at: now,
      })
      .where('id', '=', found.id)
      .where('status', '=', found.status)
      .where((eb) =>
        found.lease_owner === null
          ? eb('lease_owner', 'is', null)
          : eb('lease_owner', '=', found.lease_owner),
      )
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return null;
    const takeover = found.status === 'running';
    await trx
      .insertInto('audit_events')
      .values(
        eventRow(
          found.id,
          takeover
            ? { type: 'takeover', actor: `worker:${worker}`, detail: { from: found.lease_owner } }
            : { type: 'started', actor: `worker:${worker}` },
          now,
        ),
      )
      .execute();
    const job = await trx
      .selectFrom('audit_jobs')
      .selectAll()
      .where('id', '=', found.id)
      .executeTakeFirstOrThrow();
    return { job, takeover, previousOwner: found.lease_owner };
  });
}

export function createLeaseRows(
  db: Kysely<Database>,
  dialect: DialectName,
): Pick<AuditStore, 'claim' | 'heartbeat' | 'release' | 'finish'> {
  return {
    claim: (worker, now, leaseMs, onlyJobId) => claimJob(db, dialect, worker, now, leaseMs, onlyJobId),

    async heartbeat(jobId, worker, now, leaseMs, progress) {
      const r = await whileLeased(db, jobId, worker, {
        heartbeat_at: now,
        lease_expires_at: now + leaseMs,
        progress: json(progress),
        updated_at: now,
      }).executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return null;
      const row = await db
        .selectFrom('audit_jobs')
        .select('cancel_requested')
        .where('id', '=', jobId)
        .executeTakeFirstOrThrow();
      return { cancelRequested: row.cancel_requested === 1 };
    },

    async release(jobId, worker, now, progress) {
      await whileLeased(db, jobId, worker, {
        lease_expires_at: now,
        progress: json(progress),
        updated_at: now,
      }).execute();
    },

    async finish(jobId, worker, end, now) {
      return await db.transaction().execute(async (trx) => {
        const job = await trx
          .selectFrom('audit_jobs')
          .select(['freshness_seconds'])
          .where('id', '=', jobId)
          .executeTakeFirst();
        const freshness =
          end.status === 'succeeded' && job?.freshness_seconds ? now + job.freshness_seconds * 1000 : null;
        const r = await whileLeased(trx, jobId, worker, {
          status: end.status,
          final_interpretation: end.finalInterpretation === null ? null : json(end.finalInterpretation),
          error_detail: end.errorDetail,
          progress: json(end.progress),
          freshness_expires_at: freshness,
          lease_owner: null,
          lease_expires_at: null,
          heartbeat_at: now,
          updated_at: now,
        }).executeTakeFirst();
        if (Number(r.numUpdatedRows) !== 1) return false;
        await trx
          .insertInto('audit_events')
          .values(eventRow(jobId, end.event, now))
          .execute();
        return true;
      });
    },
  };
}
