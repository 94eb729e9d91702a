/** Audit job shapes (SERVICE-SPEC §2.11, CONTRACT §10) as TypeBox schemas and their types. */
import { type Static, Type } from '@sinclair/typebox';

export const MAX_LIST = 32;

export const CreateAuditJobBody = Type.Object(
  {
    targets: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: MAX_LIST,
        description: 'Mixed IPs, CIDRs and ASNs (`AS64500` or `64500`), up to 32',
      }),
    ),
    ips: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: MAX_LIST,
        description: 'IP addresses, up to 32',
      }),
    ),
    cidrs: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: MAX_LIST,
        description: 'CIDR networks, up to 32',
      }),
    ),
    asns: Type.Optional(
      Type.Array(Type.Number(), {
        maxItems: MAX_LIST,
        description: 'ASNs 1-4294967295, expanded to the pinned dataset version’s prefixes; up to 32',
      }),
    ),
    dataset_version: Type.Integer({
      minimum: 1,
      description: 'Pinned dataset version, held by this instance',
    }),
    seed: Type.String({ minLength: 1, maxLength: 256, description: 'Deterministic sampling seed' }),
    max_samples: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10000, description: 'Sample size cap, default 256' }),
    ),
    max_population: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          'Largest population accepted, default 1000000 (over it: POPULATION_TOO_LARGE); IPv4 counts by address, IPv6 by /64',
      }),
    ),
    freshness_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 86400,
        description: 'Reuse window: a succeeded job of the same owner and request is returned for this long',
      }),
    ),
    acceptance: Type.Optional(
      Type.Boolean({ description: 'Adds the pass/review/fail acceptance gate (default false)' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateAuditJobBody = Static<typeof CreateAuditJobBody>;

export const AUDIT_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type AuditStatus = (typeof AUDIT_STATUSES)[number];

const FreeObject = Type.Object({}, { additionalProperties: true });
const Timestamp = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const AuditJob = Type.Object({
  id: Type.Integer(),
  request_hash: Type.String({ description: 'SHA-256 of the canonical request' }),
  request: FreeObject,
  dataset_version: Type.Integer(),
  seed: Type.String(),
  status: Type.Union(AUDIT_STATUSES.map((s) => Type.Literal(s))),
  sampling_manifest: FreeObject,
  final_interpretation: Type.Union([FreeObject, Type.Null()]),
  freshness_expires_at: Timestamp,
  error_detail: Type.Union([Type.String(), Type.Null()]),
  progress: FreeObject,
  cancel_requested: Type.Boolean(),
  started_at: Timestamp,
  heartbeat_at: Timestamp,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type AuditJob = Static<typeof AuditJob>;

export const AuditTarget = Type.Object({
  id: Type.Integer(),
  ordinal: Type.Integer(),
  target_kind: Type.Literal('ip'),
  target: Type.String(),
  sampling_manifest: FreeObject,
});
export type AuditTarget = Static<typeof AuditTarget>;

export const OBSERVATION_KINDS = ['dnsbl', 'fcrdns'] as const;
export const OUTCOMES = ['listed', 'not_listed', 'error', 'timeout', 'pass', 'fail', 'unknown'] as const;

export const AuditObservation = Type.Object({
  id: Type.Integer(),
  job_id: Type.Integer(),
  target_id: Type.Integer(),
  address: Type.String(),
  observation_kind: Type.Union(OBSERVATION_KINDS.map((k) => Type.Literal(k))),
  source_key: Type.String({ description: 'The DNSBL zone probed, or `fcrdns`' }),
  outcome: Type.Union(OUTCOMES.map((o) => Type.Literal(o))),
  raw_codes: Type.Array(Type.String()),
  raw_provider_response: FreeObject,
  observed_at: Type.String({ format: 'date-time' }),
  expires_at: Timestamp,
});
export type AuditObservation = Static<typeof AuditObservation>;

export const EVENT_TYPES = [
  'created',
  'started',
  'cancel_requested',
  'cancelled',
  'completed',
  'failed',
  'takeover',
] as const;
export type AuditEventType = (typeof EVENT_TYPES)[number];

export const AuditEvent = Type.Object({
  id: Type.Integer(),
  job_id: Type.Integer(),
  event_type: Type.Union(EVENT_TYPES.map((e) => Type.Literal(e))),
  actor: Type.String({ description: '`key:<id>` for a caller, `worker:<name>` for a worker' }),
  detail: FreeObject,
  created_at: Type.String({ format: 'date-time' }),
});
export type AuditEvent = Static<typeof AuditEvent>;

export const AuditResult = Type.Object({
  job: AuditJob,
  targets: Type.Array(AuditTarget),
  observations: Type.Array(AuditObservation),
  events: Type.Array(AuditEvent),
});
export type AuditResult = Static<typeof AuditResult>;

export const CreateAuditJobResult = Type.Object({ job: AuditJob, reused: Type.Boolean() });
export const CancelAuditJobResult = Type.Object({ job: AuditJob, cancellation_accepted: Type.Boolean() });
export const AuditJobList = Type.Object({
  jobs: Type.Array(AuditJob),
  count: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
});
