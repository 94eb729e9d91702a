/** Stored rows → the API's shapes (SERVICE-SPEC §2.11): JSON text parsed, times as RFC 3339. */
import { toIso } from '../core/clock.ts';
import type { EventRow, JobRow, ObservationRow, TargetRow } from './store.ts';
import type { AuditEvent, AuditJob, AuditObservation, AuditTarget } from './types.ts';

const obj = (text: string | null): Record<string, unknown> =>
  text ? (JSON.parse(text) as Record<string, unknown>) : {};
const iso = (ms: number | null): string | null => (ms === null ? null : toIso(ms));

export function jobView(r: JobRow): AuditJob {
  return {
    id: r.id,
    request_hash: r.request_hash,
    request: obj(r.request),
    dataset_version: r.dataset_version,
    seed: r.seed,
    status: r.status,
    sampling_manifest: obj(r.sampling_manifest),
    final_interpretation: r.final_interpretation ? obj(r.final_interpretation) : null,
    freshness_expires_at: iso(r.freshness_expires_at),
    error_detail: r.error_detail,
    progress: obj(r.progress),
    cancel_requested: r.cancel_requested === 1,
    started_at: iso(r.started_at),
    heartbeat_at: iso(r.heartbeat_at),
    created_at: toIso(r.created_at),
    updated_at: toIso(r.updated_at),
  };
}

export function targetView(r: TargetRow): AuditTarget {
  return {
    id: r.id,
    ordinal: r.ordinal,
    target_kind: 'ip',
    target: r.target,
    sampling_manifest: obj(r.sampling_manifest),
  };
}

export function observationView(r: ObservationRow): AuditObservation {
  return {
    id: r.id,
    job_id: r.job_id,
    target_id: r.target_id,
    address: r.address,
    observation_kind: r.observation_kind as AuditObservation['observation_kind'],
    source_key: r.source_key,
    outcome: r.outcome as AuditObservation['outcome'],
    raw_codes: JSON.parse(r.raw_codes) as string[],
    raw_provider_response: obj(r.raw_provider_response),
    observed_at: toIso(r.observed_at),
    expires_at: iso(r.expires_at),
  };
}

export function eventView(r: EventRow): AuditEvent {
  return {
    id: r.id,
    job_id: r.job_id,
    event_type: r.event_type as AuditEvent['event_type'],
    actor: r.actor,
    detail: obj(r.detail),
    created_at: toIso(r.created_at),
  };
}
