/** Answer shapes of saved IPs, webhooks, deliveries and events (CONTRACT §11). */
import { type Static, Type } from '@sinclair/typebox';
import type { TierName } from '../accounts/index.ts';

/** Saved addresses per owner, by the tier of the key that saves one (docs/api.md "Saved IPs and webhooks"). */
export const SAVED_IP_CAPS: Record<TierName, number> = {
  free: 10,
  starter: 100,
  pro: 1_000,
  enterprise: 10_000,
};

/** Webhooks per owner. */
export const MAX_WEBHOOKS = 10;
export const MAX_LABEL_LENGTH = 100;

export const SavedIpAnswer = Type.Object(
  {
    ip: Type.String({ description: 'The address, normalized.' }),
    label: Type.Union([Type.String(), Type.Null()], { description: 'The owner’s note.' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { description: 'An address the owner watches: its lookup changes arrive as `saved_ip` events.' },
);
export type SavedIpAnswer = Static<typeof SavedIpAnswer>;

export const WebhookAnswer = Type.Object(
  {
    id: Type.Integer({ description: 'Webhook id.' }),
    url: Type.String({ description: 'Where events are POSTed.' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { description: 'A webhook as listed (its secret is shown only when it is created).' },
);
export type WebhookAnswer = Static<typeof WebhookAnswer>;

export const CreatedWebhookAnswer = Type.Composite(
  [
    WebhookAnswer,
    Type.Object({
      secret: Type.String({
        description: 'The signing secret, shown this once: verify X-Netrep-Signature with it.',
      }),
    }),
  ],
  { description: 'The created webhook with its secret.' },
);
export type CreatedWebhookAnswer = Static<typeof CreatedWebhookAnswer>;

export const DeliveryAttemptAnswer = Type.Object(
  {
    event_id: Type.String({ description: 'The event id (also the X-Netrep-Event-Id header).' }),
    attempt: Type.Integer({ description: 'Attempt number of this event to this hook, from 1.' }),
    status: Type.Union([Type.Literal('success'), Type.Literal('failed'), Type.Literal('dead')], {
      description: 'success: a 2xx answer; failed: retried later; dead: the last attempt failed.',
    }),
    response_code: Type.Union([Type.Integer(), Type.Null()], {
      description: 'HTTP status of the answer, null when none arrived.',
    }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt failed.' }),
    attempted_at: Type.String({ format: 'date-time' }),
    next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the next attempt is due (null after a success or the last attempt).',
    }),
  },
  { description: 'One delivery attempt, newest first.' },
);
export type DeliveryAttemptAnswer = Static<typeof DeliveryAttemptAnswer>;

export const EventPayload = Type.Object(
  {
    id: Type.String({ description: 'Event id: the same on every retry, so receivers can drop duplicates.' }),
    entity_type: Type.String({ description: '`saved_ip`, `email_pool`, `email_domain` or `ping`.' }),
    source_key: Type.String({
      description: '`blocklist`, `dataset`, `email_pool`, `dmarc_aggregate` or `ping`.',
    }),
    entity: Type.String({
      description: 'The IP address concerned (the domain for `email_domain`, the hook id for `ping`).',
    }),
    state: Type.Record(Type.String(), Type.Unknown(), { description: 'What changed.' }),
    occurred_at: Type.String({ format: 'date-time' }),
  },
  { description: 'The JSON body POSTed to a webhook.' },
);
export type EventPayload = Static<typeof EventPayload>;

/** The lookup fields a `saved_ip` dataset event compares (a saved IP's state per dataset version). */
export interface SavedIpLookup {
  threat_level: string;
  flags: Record<string, unknown>;
}
