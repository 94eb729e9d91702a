/**
 * Examples of the audit job operations for /openapi.json, in the shapes the real app answers
 * (src/http/routes/audit.test.ts) and checked against the route schemas by openapi.test.ts.
 */
import type { OperationExamples } from '../openapi.ts';

const job = {
  id: 42,
  request_hash: '5c1b0e7e0d6f1f7a4e8f3d9b2a6c4e1f0b3d5a7c9e1f3b5d7f9a1c3e5b7d9f1a',
  request: {
    ips: ['192.0.2.7'],
    cidrs: ['198.51.100.0/30'],
    asns: [],
    dataset_version: 3,
    seed: 'weekly-2026-06-15',
    max_samples: 256,
    max_population: 1000000,
    acceptance: true,
    freshness_seconds: 3600,
  },
  dataset_version: 3,
  seed: 'weekly-2026-06-15',
  status: 'succeeded',
  sampling_manifest: {
    method: 'hmac-sha256-draws-v2',
    seed: 'weekly-2026-06-15',
    dataset_version: 3,
    population: 5,
    population_unit: 'IPv4 address; IPv6 /64',
    population_ipv4: 5,
    population_ipv6_64s: 0,
    population_digest: '0d5f3c8a1b2e4f6a8c0e2d4f6b8a0c2e4d6f8b0a2c4e6d8f0b2a4c6e8d0f2b4a',
    ranges: 2,
    sample_size: 5,
    sample_ipv4: 5,
    sample_ipv6: 0,
    addresses: ['192.0.2.7', '198.51.100.0', '198.51.100.1', '198.51.100.2', '198.51.100.3'],
  },
  final_interpretation: {
    addresses: 5,
    zones: { 'bl.netrep.test': { listed: 0, not_listed: 5, error: 0, timeout: 0 } },
    fcrdns: { pass: 0, fail: 5, unknown: 0 },
    acceptance: { gate: 'pass', reasons: ['no address is listed and 0.0 % of probes errored'] },
  },
  freshness_expires_at: '2026-06-15T13:00:05.000Z',
  error_detail: null,
  progress: { done: 10, planned: 10 },
  cancel_requested: false,
  started_at: '2026-06-15T12:00:01.000Z',
  heartbeat_at: '2026-06-15T12:00:05.000Z',
  created_at: '2026-06-15T12:00:00.000Z',
  updated_at: '2026-06-15T12:00:05.000Z',
};

export const createAuditJobExample: OperationExamples = {
  request: {
    ips: ['192.0.2.7'],
    cidrs: ['198.51.100.0/30'],
    dataset_version: 3,
    seed: 'weekly-2026-06-15',
    acceptance: true,
    freshness_seconds: 3600,
  },
  response: { job, reused: true },
};

export const getAuditJobExample: OperationExamples = { response: job };

export const listAuditJobsExample: OperationExamples = {
  response: { jobs: [job], count: 1, limit: 20, offset: 0 },
};

export const cancelAuditJobExample: OperationExamples = {
  response: { job, cancellation_accepted: false },
};

export const getAuditJobResultExample: OperationExamples = {
  response: {
    job,
    targets: [
      {
        id: 101,
        ordinal: 0,
        target_kind: 'ip',
        target: '192.0.2.7',
        sampling_manifest: { population_index: '0' },
      },
    ],
    observations: [
      {
        id: 7,
        job_id: 42,
        target_id: 101,
        address: '192.0.2.7',
        observation_kind: 'dnsbl',
        source_key: 'bl.netrep.test',
        outcome: 'not_listed',
        raw_codes: [],
        raw_provider_response: { rcode: 'NXDOMAIN', txt: [] },
        observed_at: '2026-06-15T12:00:02.000Z',
        expires_at: '2026-06-15T13:00:02.000Z',
      },
    ],
    events: [
      {
        id: 1,
        job_id: 42,
        event_type: 'created',
        actor: 'key:7',
        detail: {},
        created_at: '2026-06-15T12:00:00.000Z',
      },
      {
        id: 2,
        job_id: 42,
        event_type: 'started',
        actor: 'worker:host-1234',
        detail: {},
        created_at: '2026-06-15T12:00:01.000Z',
      },
      {
        id: 3,
        job_id: 42,
        event_type: 'completed',
        actor: 'worker:host-1234',
        detail: {},
        created_at: '2026-06-15T12:00:05.000Z',
      },
    ],
  },
};
