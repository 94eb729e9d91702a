/**
 * Runs webhook work regularly (in `serve` and `worker`): turns new change-log entries into
 * events, sends due deliveries (several workers share them: claims skip each other's rows on
 * PostgreSQL) and drops events past retention once an hour.
 */
import type { Clock } from '../core/clock.ts';
import type { Webhooks } from '../webhooks/index.ts';
import { serialPass } from './schedule.ts';

const BATCH = 20;
const PRUNE_EVERY_MS = 3_600_000;

export interface WebhookWorkerLogger {
  warn(obj: object, msg?: string): void;
}

export interface WebhookWorker {
  /** One pass now: collect events, send what is due; returns the attempts made. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export function startWebhookWorker(options: {
  webhooks: Webhooks;
  clock: Clock;
  /** Turns new blocklist/graduation entries into events (app.ts composes it). */
  collect?: () => Promise<unknown>;
  intervalMs?: number;
  scheduled?: boolean;
  logger?: WebhookWorkerLogger;
}): WebhookWorker {
  let prunedAt = 0;
  const pass = async (): Promise<number> => {
    await options.collect?.();
    let attempts = 0;
    for (;;) {
      const n = await options.webhooks.deliverDue(BATCH);
      attempts += n;
      if (n < BATCH) break;
    }
    const now = options.clock();
    if (now - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = now;
      await options.webhooks.prune();
    }
    return attempts;
  };
  return serialPass(pass, {
    intervalMs: options.intervalMs ?? 1000,
    enabled: options.scheduled,
    onError: (err) => options.logger?.warn({ err }, 'webhook delivery failed'),
  });
}
