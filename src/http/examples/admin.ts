/**
 * Examples of the admin operations for /openapi.json, recorded from the real app on the test
 * fixtures (test/helpers) and checked against the route schemas by test/http/openapi.test.ts.
 */
import type { OperationExamples } from '../openapi.ts';

export const setKeyFeaturesExample: OperationExamples = {
  request: { telemetry_ingest: true },
  response: {
    id: 12,
    name: 'mail relay',
    prefix: 'nrp_k7GI',
    owner_email: 'ops@example.com',
    tier: 'pro',
    permissions: ['admin'],
    features: ['telemetry_ingest'],
    created_at: '2026-06-15T12:00:00.000Z',
    last_used_at: '2026-06-15T12:00:00.000Z',
    revoked_at: null,
  },
};

export const revokeKeyExample: OperationExamples = {
  response: {
    id: 12,
    name: 'mail relay',
    prefix: 'nrp_k7GI',
    owner_email: 'ops@example.com',
    tier: 'pro',
    permissions: ['admin'],
    features: ['telemetry_ingest'],
    created_at: '2026-06-15T12:00:00.000Z',
    last_used_at: '2026-06-15T12:00:00.000Z',
    revoked_at: '2026-06-15T12:00:00.000Z',
  },
};

export const recordEvidenceExample: OperationExamples = {
  request: { events: [{ ip: '203.0.113.9', kind: 'pristine_trap', observed_at: '2026-06-15T11:58:00Z' }] },
  response: { accepted: 1, rejected: 0, errors: [] },
};

export const reloadDatasetExample: OperationExamples = {
  response: { previous_version: 1, dataset_version: 1, reloaded: false },
  meta: { dataset_version: 1 },
};
