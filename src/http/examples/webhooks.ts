/** Examples of the saved-IP and webhook operations for /openapi.json (checked by openapi.test.ts). */
import type { OperationExamples } from '../openapi.ts';

const savedIp = { ip: '45.33.32.156', label: 'mail relay 1', created_at: '2026-06-15T12:00:00.000Z' };
const hook = { id: 3, url: 'https://hooks.example.com/netrep', created_at: '2026-06-15T12:00:00.000Z' };

export const saveIpExample: OperationExamples = {
  request: { ip: '45.33.32.156', label: 'mail relay 1' },
  response: savedIp,
};
export const listSavedIpsExample: OperationExamples = {
  response: { saved_ips: [savedIp], total: 1, limit: 50, offset: 0 },
};
export const deleteSavedIpExample: OperationExamples = { response: { ip: '45.33.32.156', saved: false } };

export const createWebhookExample: OperationExamples = {
  request: { url: 'https://hooks.example.com/netrep' },
  response: { ...hook, secret: 'whsec_4f1c0d6e2b9a7c5e3f1d0b8a6c4e2f0a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e' },
};
export const listWebhooksExample: OperationExamples = { response: { webhooks: [hook] } };
export const deleteWebhookExample: OperationExamples = { response: { id: 3, deleted: true } };
export const listDeliveriesExample: OperationExamples = {
  response: {
    deliveries: [
      {
        event_id: '0b9e6c2a-6f1e-4f57-9a53-3c2f1d6a7b10',
        attempt: 2,
        status: 'success',
        response_code: 204,
        error: null,
        attempted_at: '2026-06-15T12:01:00.000Z',
        next_attempt_at: null,
      },
      {
        event_id: '0b9e6c2a-6f1e-4f57-9a53-3c2f1d6a7b10',
        attempt: 1,
        status: 'failed',
        response_code: 503,
        error: 'HTTP 503',
        attempted_at: '2026-06-15T12:00:00.000Z',
        next_attempt_at: '2026-06-15T12:01:00.000Z',
      },
    ],
    limit: 50,
    offset: 0,
  },
};
export const testWebhookExample: OperationExamples = {
  request: {},
  response: { event_id: '6d3f1a2b-8c4e-4d7f-b1a2-9e8d7c6b5a41' },
};
