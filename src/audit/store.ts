/** Saves and reads audit jobs, targets, observations and events; no rules here. */
import type { Generated, Kysely, Selectable } from 'kysely';
import { type Store, supportsSkipLocked } from '../store/index.ts';
import type { Database } from '../store/schema.ts';
import type { AuditEventType, AuditStatus } from './types.ts';

export interface AuditJobsTable {
  id: Generated<number>;
  owner_id: number;
  key_id: number | null;
  request_hash: string;
  request: string;
  dataset_version: number;
  seed: string;
  status: AuditStatus;
  sampling_manifest: string;
  final_interpretation: string | null;
  freshness_seconds: number | null;
  freshness_expires_at: number | null;
  error_detail: string | null;
  progress: string;
  cancel_requested: Generated<number>;
  lease_owner: string | null;
  lease_expires_at: number | null;
  started_at: number | null;
  heartbeat_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface AuditTargetsTable {
  id: Generated<number>;
  job_id: number;
  ordinal: number;
  target_kind: string;
  target: string;
  sampling_manifest: string;
}

export interface AuditObservationsTable {
  id: Generated<number>;
  job_id: number;
  target_id: number;
  address: string;
  observation_kind: string;
  source_key: string;
  outcome: string;
  raw_codes: string;
  raw_provider_response: string;
  observed_at: number;
  expires_at: number | null;
}

export interface AuditEventsTable {
  id: Generated<number>;
  job_id: number;
  event_type: string;
  actor: string;
  detail: string;
  created_at: number;
}

declare module '../store/schema.ts' {
  interface Database {
    audit_jobs: AuditJobsTable;
    audit_targets: AuditTargetsTable;
    audit_observations: AuditObservationsTable;
    audit_events: AuditEventsTable;
  }
}

export type JobRow = Selectable<AuditJobsTable>;
export type TargetRow = Selectable<AuditTargetsTable>;
export type ObservationRow = Selectable<AuditObservationsTable>;
export type EventRow = Selectable<AuditEventsTable>;

export interface NewJob {
  ownerId: number;
  keyId: number | null;
  requestHash: string;
  request: unknown;
  datasetVersion: number;
  seed: string;
  samplingManifest: unknown;
  freshnessSeconds: number | null;
  progress: unknown;
}

export interface NewTarget {
  target: string;
  samplingManifest: unknown;
}

export interface NewEvent {
  type: AuditEventType;
  actor: string;
  detail?: unknown;
}

export interface NewObservation {
  jobId: number;
  targetId: number;
  address: string;
  kind: string;
  sourceKey: string;
  outcome: string;
  rawCodes: string[];
  rawProviderResponse: unknown;
  observedAt: number;
  expiresAt: number | null;
}

export interface Claimed {
  job: JobRow;
  /** The job was running under a lease that expired (its worker died). */
  takeover: boolean;
  previousOwner: string | null;
}

export interface AuditStore {
  findReusable(ownerId: number, requestHash: string, now: number): Promise<JobRow | null>;
  insertJob(job: NewJob, targets: readonly NewTarget[], event: NewEvent, now: number): Promise<JobRow>;
  /** The job, when `ownerId` owns it (null: any owner, for workers). */
  job(id: number, ownerId: number | null): Promise<JobRow | null>;
  listJobs(ownerId: number, limit: number, offset: number): Promise<JobRow[]>;
  targets(jobId: number): Promise<TargetRow[]>;
  observations(jobId: number): Promise<ObservationRow[]>;
  events(jobId: number): Promise<EventRow[]>;
  addEvent(jobId: number, event: NewEvent, now: number): Promise<void>;
  /** queued → cancelled at once; returns false when the job was not queued. */
  cancelQueued(jobId: number, actor: string, now: number): Promise<boolean>;
  /** running → cancel_requested; returns false when the job was not running. */
  requestCancel(jobId: number, actor: string, now: number): Promise<boolean>;
  /**
   * Takes the oldest queued job, or a running one whose lease expired (SKIP LOCKED on
   * PostgreSQL); with `onlyJobId`, that job alone when it is due.
   */
  claim(worker: string, now: number, leaseMs: number, onlyJobId?: number): Promise<Claimed | null>;
  /** Renews the lease; null when this worker no longer holds the job, else its cancel flag. */
  heartbeat(
    jobId: number,
    worker: string,
    now: number,
    leaseMs: number,
    progress: unknown,
  ): Promise<{ cancelRequested: boolean } | null>;
  /** The job's cancel flag (read between probes). */
  cancelRequested(jobId: number): Promise<boolean>;
  /** Inserts unless one exists for the same job, target, kind and source; true when inserted. */
  insertObservation(o: NewObservation): Promise<boolean>;
  /** The same for many in one statement; returns how many were inserted. */
  insertObservations(list: readonly NewObservation[]): Promise<number>;
  /** Gives up the lease now (a worker shutting down), so another worker takes the job over at once. */
  release(jobId: number, worker: string, now: number, progress: unknown): Promise<void>;
  /** Ends a running job held by `worker`; false when the lease was lost. */
  finish(
    jobId: number,
    worker: string,
    end: {
      status: 'succeeded' | 'failed' | 'cancelled';
      finalInterpretation: unknown;
      errorDetail: string | null;
      progress: unknown;
      event: NewEvent;
    },
    now: number,
  ): Promise<boolean>;
}

const json = (v: unknown): string => JSON.stringify(v ?? {});

export function createAuditStore(store: Store): AuditStore {
  const db: Kysely<Database> = store.db;
  const { dialect } = store;

  const eventRow = (jobId: number, e: NewEvent, now: number) => ({
    job_id: jobId,
    event_type: e.type,
    actor: e.actor,
    detail: json(e.detail),
    created_at: now,
  });

  async function insertObservations(list: readonly NewObservation[]): Promise<number> {
    if (list.length === 0) return 0;
    const r = await db
      .insertInto('audit_observations')
      .values(
        list.map((o) => ({
          job_id: o.jobId,
          target_id: o.targetId,
          address: o.address,
          observation_kind: o.kind,
          source_key: o.sourceKey,
          outcome: o.outcome,
          raw_codes: JSON.stringify(o.rawCodes),
          raw_provider_response: json(o.rawProviderResponse),
          observed_at: o.observedAt,
          expires_at: o.expiresAt,
        })),
      )
      .onConflict((oc) => oc.columns(['job_id', 'target_id', 'observation_kind', 'source_key']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0);
  }

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

    async claim(worker, now, leaseMs, onlyJobId) {
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
        const found = await (supportsSkipLocked(dialect)
          ? due.forUpdate().skipLocked()
          : due
        ).executeTakeFirst();
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
    },

    async heartbeat(jobId, worker, now, leaseMs, progress) {
      const r = await db
        .updateTable('audit_jobs')
        .set({
          heartbeat_at: now,
          lease_expires_at: now + leaseMs,
          progress: json(progress),
          updated_at: now,
        })
        .where('id', '=', jobId)
        .where('status', '=', 'running')
        .where('lease_owner', '=', worker)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return null;
      const row = await db
        .selectFrom('audit_jobs')
        .select('cancel_requested')
        .where('id', '=', jobId)
        .executeTakeFirstOrThrow();
      return { cancelRequested: row.cancel_requested === 1 };
    },

    async cancelRequested(jobId) {
      const row = await db
        .selectFrom('audit_jobs')
        .select('cancel_requested')
        .where('id', '=', jobId)
        .executeTakeFirst();
      return row?.cancel_requested === 1;
    },

    insertObservations,

    async insertObservation(o) {
      return (await insertObservations([o])) > 0;
    },

    async release(jobId, worker, now, progress) {
      await db
        .updateTable('audit_jobs')
        .set({ lease_expires_at: now, progress: json(progress), updated_at: now })
        .where('id', '=', jobId)
        .where('status', '=', 'running')
        .where('lease_owner', '=', worker)
        .execute();
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
        const r = await trx
          .updateTable('audit_jobs')
          .set({
            status: end.status,
            final_interpretation: end.finalInterpretation === null ? null : json(end.finalInterpretation),
            error_detail: end.errorDetail,
            progress: json(end.progress),
            freshness_expires_at: freshness,
            lease_owner: null,
            lease_expires_at: null,
            heartbeat_at: now,
            updated_at: now,
          })
          .where('id', '=', jobId)
          .where('status', '=', 'running')
          .where('lease_owner', '=', worker)
          .executeTakeFirst();
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
