/**
 * Examples of the health operations for /openapi.json, recorded from the real app on the test
 * fixtures (test/helpers) and checked against the route schemas by test/http/openapi.test.ts.
 */
import type { OperationExamples } from '../openapi.ts';

export const getHealthExample: OperationExamples = { response: { status: 'ok' } };

export const getReadinessExample: OperationExamples = {
  response: {
    status: 'ready',
    checks: [
      { name: 'store', ok: true },
      { name: 'dataset', ok: true, detail: 'v1' },
    ],
    dataset: {
      version: 1,
      built_at: '2026-06-15T06:00:00.000Z',
      age_seconds: 21600,
      upstream: true,
      summary: 'v1 holds 2 upstream source families (spamhaus, tor) and the bundled npm packages',
      families: [
        {
          family: 'bundled',
          sources: 6,
          rows: 2108164,
          built_at: '2026-06-15T06:00:00.000Z',
          age_seconds: 21600,
        },
        {
          family: 'spamhaus',
          sources: 1,
          rows: 1534,
          built_at: '2026-06-15T06:00:00.000Z',
          age_seconds: 21600,
        },
        { family: 'tor', sources: 1, rows: 2378, built_at: '2026-06-15T06:00:00.000Z', age_seconds: 21600 },
      ],
      update: {
        schedule: 'daily',
        last_attempt_at: '2026-06-15T06:00:00.000Z',
        last_result: 'partial',
        last_error: '1 of 3 downloads failed (aws)',
        last_success_at: null,
        consecutive_failures: 1,
        next_attempt_at: '2026-06-15T06:05:00.000Z',
      },
      sources: [
        {
          id: 'tor-exit-addresses',
          family: 'tor',
          in_snapshot: true,
          rows: 2378,
          attempted_at: '2026-06-15T06:00:00.000Z',
          ok: true,
          error: null,
          last_ok_at: '2026-06-15T06:00:00.000Z',
          failures: 0,
        },
        {
          id: 'aws',
          family: 'cloud',
          in_snapshot: false,
          rows: null,
          attempted_at: '2026-06-15T06:00:00.000Z',
          ok: false,
          error: 'HTTP 503',
          last_ok_at: null,
          failures: 1,
        },
        {
          id: 'spamhaus-drop-text',
          family: 'spamhaus',
          in_snapshot: true,
          rows: 1534,
          attempted_at: '2026-06-15T06:00:00.000Z',
          ok: true,
          error: null,
          last_ok_at: '2026-06-15T06:00:00.000Z',
          failures: 0,
        },
      ],
    },
  },
  meta: { dataset_version: 1 },
};
