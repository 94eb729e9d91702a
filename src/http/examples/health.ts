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
  },
  meta: { dataset_version: 1 },
};
