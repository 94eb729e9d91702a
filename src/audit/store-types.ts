/** The audit tables, their rows and AuditStore, the interface of store.ts. */
import type { Generated, Selectable } from 'kysely';
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
