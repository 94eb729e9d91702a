/**
 * The delivery of due events (spec §6): each claimed row is sent signed to its hook's address,
 * checked again against the SSRF guard on every attempt, and recorded as delivered, pending its
 * next attempt (retry.ts back-off) or dead.
 */
import { type Clock, toIso } from '../core/clock.ts';
import { nextAttemptAt, type RetryPolicy } from './retry.ts';
import type { SendRequest, SendResult } from './send.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureOf } from './signature.ts';
import type { EventRow, WebhookStore } from './store.ts';
import type { Target } from './target.ts';
import type { EventPayload } from './types.ts';

/**
 * A claimed delivery is its worker's for this long (more than a DNS check and the 5 s send);
 * past it, the row of a worker that died mid-send is due again.
 */
export const DELIVERY_LEASE_MS = 20_000;

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

/** An attempt's outcome: it worked, it failed with a next attempt due, or it was the last. */
function attemptStatus(ok: boolean, next: number | null): 'success' | 'failed' | 'dead' {
  if (ok) return 'success';
  return next === null ? 'dead' : 'failed';
}

/** The delivery's state after an attempt with that outcome. */
const DELIVERY_STATUS = { success: 'delivered', failed: 'pending', dead: 'dead' } as const;

export interface Delivery {
  /** Sends up to `limit` due deliveries; returns how many attempts were made. */
  deliverDue(limit?: number): Promise<number>;
  /** Deliveries this process marked dead (their last attempt failed), since start. */
  deadLetters(): number;
}

type DueDelivery = Awaited<ReturnType<WebhookStore['claimDue']>>[number];

export function createDelivery(options: {
  store: WebhookStore;
  clock: Clock;
  guard: (url: unknown) => Promise<Target>;
  send: (req: SendRequest) => Promise<SendResult>;
  retry: RetryPolicy;
  random: () => number;
}): Delivery {
  const { store, clock, guard, send } = options;
  // Deliveries this process marked dead, since start (netrep_webhook_dead_letters_total).
  let deadLetters = 0;

  async function sendSigned(d: DueDelivery): Promise<SendResult> {
    const body = JSON.stringify(payloadOf(d.event));
    // The host may have moved since the hook was created: checked again on every attempt.
    const target = await guard(d.url);
    if (!target.ok) return { status: null, error: target.reason };
    const t = Math.floor(clock() / 1000);
    return await send({
      url: target.url,
      address: target.address,
      family: target.family,
      host: target.host,
      body,
      headers: { [SIGNATURE_HEADER]: signatureOf(d.secret, t, body), [EVENT_ID_HEADER]: d.event.id },
    });
  }

  async function attempt(d: DueDelivery): Promise<boolean> {
    const number = d.attempts + 1;
    const result = await sendSigned(d);
    const now = clock();
    const ok = result.error === null;
    const next = ok ? null : nextAttemptAt(options.retry, number, now, options.random);
    const status = attemptStatus(ok, next);
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
        status: DELIVERY_STATUS[status],
        attempts: number,
        nextAttemptAt: next ?? now,
        updatedAt: now,
      },
    );
    if (status === 'dead') deadLetters++;
    return ok;
  }

  return {
    async deliverDue(limit = 20) {
      const now = clock();
      const claimed = await store.claimDue(now, now + DELIVERY_LEASE_MS, limit);
      await Promise.all(claimed.map((d) => attempt(d)));
      return claimed.length;
    },
    deadLetters: () => deadLetters,
  };
}
