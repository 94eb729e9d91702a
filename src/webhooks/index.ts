export { nextAttemptAt, type RetryPolicy } from './retry.ts';
export {
  MAX_RESPONSE_BYTES,
  SEND_TIMEOUT_MS,
  type SendRequest,
  type SendResult,
  sendWebhook,
} from './send.ts';
export { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureOf, verifySignature } from './signature.ts';
export {
  createEventSources,
  type EventSourcesOptions,
  type GraduationInput,
} from './sources.ts';
export { type ChangeLog, createChangeLog } from './store.ts';
export {
  hostResolverOf,
  parseWebhookUrl,
  type ResolveHost,
  refusedAddress,
  resolveTarget,
} from './target.ts';
export * from './types.ts';
export {
  createWebhooks,
  DELIVERY_LEASE_MS,
  EVENT_RETENTION_MS,
  type NewEvent,
  payloadOf,
  type Webhooks,
  type WebhooksOptions,
} from './webhooks.ts';
