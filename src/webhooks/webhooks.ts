/**
 * Saved IPs and webhooks per owner (spec §6, CONTRACT §11): the owner's lists, the test ping,
 * and the delivery of due events. Another owner's hook answers as absent (null), never as
 * forbidden, so ids reveal nothing.
 */
import crypto from 'node:crypto';
import { type Clock, DAY_MS, toIso } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import type { Store } from '../store/index.ts';
import { createDelivery } from './delivery.ts';
import type { RetryPolicy } from './retry.ts';
import { createSavedIps } from './saved-ips.ts';
import { type SendRequest, type SendResult, sendWebhook } from './send.ts';
import {
  type AttemptRow,
  createWebhookStore,
  type EventRow,
  type WebhookStore,
  type WebhookWriter,
} from './store.ts';
import { type ResolveHost, resolveTarget } from './target.ts';
import {
  type CreatedWebhookAnswer,
  type DeliveryAttemptAnswer,
  MAX_WEBHOOKS,
  type SavedIpLookup,
  type WebhookAnswer,
} from './types.ts';

export { DELIVERY_LEASE_MS } from './delivery.ts';

/** Spec §6: events (graduations among them) are kept 30 days. */
export const EVENT_RETENTION_MS = 30 * DAY_MS;
const MIN_SECRET = 16;
const MAX_SECRET = 256;

export interface WebhooksOptions {
  store: Pick<Store, 'db' | 'dialect'>;
  clock: Clock;
  /** Host name resolution for the SSRF guard (the service's DNS client). */
  resolveHost: ResolveHost;
  /** NETREP_WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  retry: RetryPolicy;
  /** Jitter source for the back-off, in [0, 1). */
  random: () => number;
  /** Event ids (default: random UUIDs). */
  newId?: () => string;
  /** The HTTP attempt (tests may count them; default: sendWebhook). */
  send?: (req: SendRequest) => Promise<SendResult>;
  /**
   * The serving dataset's answer for an address and its version (the event sources' own): an
   * address nobody watched gets its baseline when it is saved, so its first change is an event.
   */
  lookup?: (ip: string) => SavedIpLookup | null;
  datasetVersion?: () => number | null;
}

export interface NewEvent {
  ownerId: number;
  origin: string;
  entityType: string;
  sourceKey: string;
  entity: string;
  state: Record<string, unknown>;
  occurredAt: number;
}

function webhookAnswer(r: { id: number; url: string; created_at: number }): WebhookAnswer {
  return { id: r.id, url: r.url, created_at: toIso(r.created_at) };
}

function attemptAnswer(r: AttemptRow): DeliveryAttemptAnswer {
  return {
    event_id: r.event_id,
    attempt: Number(r.attempt),
    status: r.status === 'success' ? 'success' : r.status === 'dead' ? 'dead' : 'failed',
    response_code: r.response_code === null ? null : Number(r.response_code),
    error: r.error,
    attempted_at: toIso(r.attempted_at),
    next_attempt_at: r.next_attempt_at === null ? null : toIso(r.next_attempt_at),
  };
}

function validSecret(secret: unknown): string {
  if (secret === undefined || secret === null) return `whsec_${crypto.randomBytes(32).toString('hex')}`;
  if (typeof secret !== 'string' || !/^[\x21-\x7e]+$/.test(secret))
    throw new AppError('INVALID_BODY', 'secret must be printable ASCII without spaces');
  if (secret.length < MIN_SECRET || secret.length > MAX_SECRET)
    throw new AppError('INVALID_BODY', `secret must be ${MIN_SECRET} to ${MAX_SECRET} characters`);
  return secret;
}

export type Webhooks = ReturnType<typeof createWebhooks>;

export function createWebhooks(options: WebhooksOptions) {
  const { clock } = options;
  const store: WebhookStore = createWebhookStore(options.store.db, options.store.dialect);
  const newId = options.newId ?? (() => crypto.randomUUID());
  const send = options.send ?? sendWebhook;
  const guard = (url: unknown) =>
    resolveTarget(url, { resolve: options.resolveHost, allowPrivate: options.allowPrivate });
  const savedIps = createSavedIps({
    store,
    clock,
    lookup: options.lookup,
    datasetVersion: options.datasetVersion,
  });
  const delivery = createDelivery({
    store,
    clock,
    guard,
    send,
    retry: options.retry,
    random: options.random,
  });

  /**
   * Stores events (each once per origin) with their outbox rows in one transaction, together
   * with `also` (a cursor moved, a saved state updated), so none is lost or doubled by a crash.
   */
  async function emit(
    events: readonly NewEvent[],
    options: { onlyWebhook?: number; also?: (w: WebhookWriter) => Promise<void> } = {},
  ): Promise<string[]> {
    const { onlyWebhook, also } = options;
    if (events.length === 0 && !also) return [];
    const now = clock();
    return await store.transaction(async (w) => {
      const stored: string[] = [];
      for (const e of events) {
        const id = newId();
        const row: EventRow = {
          id,
          owner_id: e.ownerId,
          origin: e.origin,
          entity_type: e.entityType,
          source_key: e.sourceKey,
          entity: e.entity,
          state: JSON.stringify(e.state),
          occurred_at: e.occurredAt,
          created_at: now,
        };
        if (await w.addEvent(row, onlyWebhook)) stored.push(id);
      }
      await also?.(w);
      return stored;
    });
  }

  return {
    ...savedIps,

    async createHook(ownerId: number, url: unknown, rawSecret: unknown): Promise<CreatedWebhookAnswer> {
      const secret = validSecret(rawSecret);
      const target = await guard(url);
      if (!target.ok) throw new AppError('INVALID_BODY', target.reason);
      if ((await store.countWebhooks(ownerId)) >= MAX_WEBHOOKS)
        throw new AppError('INVALID_BODY', `webhook limit reached: at most ${MAX_WEBHOOKS} per account`);
      const hook = await store.createWebhook({
        owner_id: ownerId,
        url: target.url.toString(),
        secret,
        created_at: clock(),
      });
      return { ...webhookAnswer(hook), secret };
    },

    async hooks(ownerId: number): Promise<WebhookAnswer[]> {
      return (await store.listWebhooks(ownerId)).map(webhookAnswer);
    },

    removeHook: (ownerId: number, id: number): Promise<boolean> => store.deleteWebhook(ownerId, id),

    /** Attempts of the owner's hook, newest first; null when the hook is not the owner's. */
    async deliveries(ownerId: number, id: number, limit: number, offset: number) {
      if (!(await store.getWebhook(ownerId, id))) return null;
      return (await store.attempts(id, limit, offset)).map(attemptAnswer);
    },

    /** Queues a `ping` event to this hook only; null when the hook is not the owner's. */
    async ping(ownerId: number, id: number): Promise<{ event_id: string } | null> {
      if (!(await store.getWebhook(ownerId, id))) return null;
      const now = clock();
      const origin = `ping:${id}:${newId()}`;
      const [eventId] = await emit(
        [
          {
            ownerId,
            origin,
            entityType: 'ping',
            sourceKey: 'ping',
            entity: String(id),
            state: { message: 'netrep webhook test' },
            occurredAt: now,
          },
        ],
        { onlyWebhook: id },
      );
      return { event_id: eventId as string };
    },

    emit,

    ...delivery,

    /** Drops events past retention with their deliveries. */
    prune: () => store.pruneEvents(clock() - EVENT_RETENTION_MS),

    store,
  };
}
