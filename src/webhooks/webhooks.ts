/**
 * Saved IPs and webhooks per owner (spec §6, CONTRACT §11): the owner's lists, the test ping,
 * and the delivery of due events. Another owner's hook answers as absent (null), never as
 * forbidden, so ids reveal nothing.
 */
import crypto from 'node:crypto';
import type { TierName } from '../accounts/index.ts';
import { type Clock, DAY_MS, toIso } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { parseIp } from '../core/ip.ts';
import type { Store } from '../store/index.ts';
import { nextAttemptAt, type RetryPolicy } from './retry.ts';
import { type SendRequest, type SendResult, sendWebhook } from './send.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureOf } from './signature.ts';
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
  type EventPayload,
  MAX_LABEL_LENGTH,
  MAX_WEBHOOKS,
  SAVED_IP_CAPS,
  type SavedIpAnswer,
  type SavedIpLookup,
  type WebhookAnswer,
} from './types.ts';

/** Spec §6: events (graduations among them) are kept 30 days. */
export const EVENT_RETENTION_MS = 30 * DAY_MS;
/**
 * A claimed delivery is its worker's for this long (more than a DNS check and the 5 s send);
 * past it, the row of a worker that died mid-send is due again.
 */
export const DELIVERY_LEASE_MS = 20_000;
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

function savedIpAnswer(r: { ip: string; label: string | null; created_at: number }): SavedIpAnswer {
  return { ip: r.ip, label: r.label, created_at: toIso(Number(r.created_at)) };
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

export function payloadOf(e: EventRow): EventPayload {
  return {
    id: e.id,
    entity_type: e.entity_type,
    source_key: e.source_key,
    entity: e.entity,
    state: JSON.parse(e.state) as Record<string, unknown>,
    occurred_at: toIso(Number(e.occurred_at)),
  };
}

function validLabel(label: unknown): string | null {
  if (label === undefined || label === null) return null;
  if (typeof label !== 'string') throw new AppError('INVALID_BODY', 'label must be a string');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
  if (/[\u0000-\u001f\u007f]/.test(label))
    throw new AppError('INVALID_BODY', 'label contains control characters');
  if (label.length > MAX_LABEL_LENGTH)
    throw new AppError('INVALID_BODY', `label is longer than ${MAX_LABEL_LENGTH} characters`);
  return label.trim() === '' ? null : label.trim();
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

  // Deliveries this process marked dead, since start (netrep_webhook_dead_letters_total).
  let deadLetters = 0;

  async function attempt(d: Awaited<ReturnType<WebhookStore['claimDue']>>[number]): Promise<boolean> {
    const number = d.attempts + 1;
    const body = JSON.stringify(payloadOf(d.event));
    // The host may have moved since the hook was created: checked again on every attempt.
    const target = await guard(d.url);
    let result: SendResult;
    if (!target.ok) result = { status: null, error: target.reason };
    else {
      const t = Math.floor(clock() / 1000);
      result = await send({
        url: target.url,
        address: target.address,
        family: target.family,
        host: target.host,
        body,
        headers: { [SIGNATURE_HEADER]: signatureOf(d.secret, t, body), [EVENT_ID_HEADER]: d.event.id },
      });
    }
    const now = clock();
    const ok = result.error === null;
    const next = ok ? null : nextAttemptAt(options.retry, number, now, options.random);
    const status = ok ? 'success' : next === null ? 'dead' : 'failed';
    await store.recordAttempt(
      {
        delivery_id: d.id,
        webhook_id: d.webhookId,
        event_id: d.event.id,
        attempt: number,
        status,
        response_code: result.status,
        error: result.error === null ? null : result.error.slice(0, 500),
        attempted_at: now,
        next_attempt_at: next,
      },
      {
        status: ok ? 'delivered' : next === null ? 'dead' : 'pending',
        attempts: number,
        nextAttemptAt: next ?? now,
        updatedAt: now,
      },
    );
    if (status === 'dead') deadLetters++;
    return ok;
  }

  /**
   * Records the serving answer as the baseline of an address nobody watches yet (replacing any
   * state left from an earlier watch). A watched address keeps the state the event sources keep,
   * which may still be a previous version's pending its diff.
   */
  async function recordBaseline(ip: string): Promise<void> {
    const version = options.datasetVersion?.() ?? null;
    const answer = version === null ? null : (options.lookup?.(ip) ?? null);
    if (version === null || answer === null) return;
    if ((await store.ownersOf([ip])).has(ip)) return;
    const row = { ip, state: JSON.stringify(answer), dataset_version: version, updated_at: clock() };
    await store.transaction((w) => w.putSavedIpState(row));
  }

  return {
    async saveIp(ownerId: number, tier: TierName, rawIp: unknown, rawLabel: unknown): Promise<SavedIpAnswer> {
      const ip = parseIp(rawIp)?.address;
      if (ip === undefined)
        throw new AppError('INVALID_IP', `invalid IP address: ${String(rawIp).slice(0, 64)}`);
      const label = validLabel(rawLabel);
      const existing = await store.getSavedIp(ownerId, ip);
      if (!existing) {
        const cap = SAVED_IP_CAPS[tier];
        if ((await store.countSavedIps(ownerId)) >= cap)
          throw new AppError(
            'INVALID_BODY',
            `saved IP limit reached: the ${tier} tier keeps at most ${cap} saved IPs; remove one first`,
          );
      }
      // Before the saved row: a crash in between leaves a state nobody watches, replaced next time.
      if (!existing) await recordBaseline(ip);
      const row = {
        owner_id: ownerId,
        ip,
        label,
        created_at: existing ? Number(existing.created_at) : clock(),
      };
      await store.putSavedIp(row);
      return savedIpAnswer(row);
    },

    async savedIps(
      ownerId: number,
      limit: number,
      offset: number,
    ): Promise<{ items: SavedIpAnswer[]; total: number }> {
      const [rows, total] = await Promise.all([
        store.listSavedIps(ownerId, limit, offset),
        store.countSavedIps(ownerId),
      ]);
      return { items: rows.map(savedIpAnswer), total };
    },

    /** The normalized address removed, or null when the owner had not saved it. */
    async removeSavedIp(ownerId: number, rawIp: string): Promise<string | null> {
      const ip = parseIp(rawIp)?.address;
      if (ip === undefined) throw new AppError('INVALID_IP', `invalid IP address: ${rawIp.slice(0, 64)}`);
      return (await store.deleteSavedIp(ownerId, ip)) ? ip : null;
    },

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

    /** Sends up to `limit` due deliveries; returns how many attempts were made. */
    async deliverDue(limit = 20): Promise<number> {
      const now = clock();
      const claimed = await store.claimDue(now, now + DELIVERY_LEASE_MS, limit);
      await Promise.all(claimed.map((d) => attempt(d)));
      return claimed.length;
    },

    /** Deliveries this process marked dead (their last attempt failed), since start. */
    deadLetters: (): number => deadLetters,

    /** Drops events past retention with their deliveries. */
    prune: () => store.pruneEvents(clock() - EVENT_RETENTION_MS),

    store,
  };
}
