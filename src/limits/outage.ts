/**
 * Limits while Redis is away (issue 32 item 5). An instance keeps answering from a local count,
 * but an outage must not multiply a quota:
 * - each counter this instance has read from Redis is remembered (`seen`), so during an outage
 *   it knows what the key had left;
 * - its local allowance is that remainder divided by the instances that share Redis (each
 *   instance writes a heartbeat into a sorted set, at most every 2 s when it counts a request
 *   or reports its state, and the ones heard from in the last 10 minutes are counted; NETREP_LIMITS_INSTANCES sets a floor), so together they cannot
 *   allow more than what was left;
 * - a counter this instance has not read gets a share of the full limit, divided the same way:
 *   UNSEEN_DAILY_SHARE for a key's daily quota, the whole limit for a minute bucket's window;
 * - what it allowed locally is added back to Redis (rate-limiter-flexible's `penalty`) as soon
 *   as Redis answers again, so the rest of the day counts it.
 * Redis is taken to be away when the client is not `ready` or a command failed; after a failure
 * it is asked again (PING) at most once a second, by the requests themselves (no timer).
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { systemClock } from '../core/clock.ts';
import { createInstanceCount } from './instance-count.ts';
import { createLocalCounts } from './local-counts.ts';

/**
 * The share of a daily quota a key this instance has not served today gets during an outage
 * (before dividing). A minute bucket's counter never read starts from its whole limit: its
 * window is a minute, so an outage costs at most one extra window's share per instance.
 */
export const UNSEEN_DAILY_SHARE = 0.1;
/** After a failure Redis is asked again (PING) at most this often. */
const PROBE_MS = 1_000;

export interface OutageState {
  /** Redis is away: limits are counted here. */
  degraded: boolean;
  /** When it went away (ms since the epoch), null while shared. */
  since: number | null;
  /** Instances counted as sharing the limits (at least the floor). */
  instances: number;
  /** Requests allowed locally and not yet added back to Redis. */
  pending: number;
  /** Requests answered from the local count since start. */
  localAllowed: number;
  /** Requests refused by the local count since start. */
  localRefused: number;
}

export interface OutageLedger {
  /** Whether the next call may go to Redis. */
  shared(): boolean;
  /** A Redis call failed (not a limit answer): count locally from now. */
  failed(): void;
  /** Redis told `consumed` for `key` of `limiter` (and so it answers). */
  seen(limiter: RateLimiterAbstract, key: string, consumed: number, expiresAt: number): void;
  /**
   * Counts one request locally against `limit`: the points it leaves here (negative: refused)
   * and when its counter ends. `unseen` is the share of `limit` a counter never read from Redis
   * starts from; `expiresAt` ends a counter begun now.
   */
  consume(
    limiter: RateLimiterAbstract,
    key: string,
    limit: number,
    expiresAt: number,
    unseen: number,
  ): { left: number; expiresAt: number };
  state(): OutageState;
  /** Adds back what was allowed locally, now (also run when Redis becomes ready). */
  flush(): Promise<void>;
}

export function createOutageLedger(options: {
  redis: Redis;
  prefix: string;
  now?: () => number;
  /** At least this many instances share the limits (NETREP_LIMITS_INSTANCES). */
  minInstances?: number;
}): OutageLedger {
  const { redis } = options;
  const now = options.now ?? systemClock;
  const instances = createInstanceCount({
    redis,
    key: `${options.prefix}:instances`,
    id: randomUUID(),
    minInstances: Math.max(1, options.minInstances ?? 1),
  });
  const counts = createLocalCounts(now);
  let down: number | null = null;
  let lastProbe = 0;
  let flushing: Promise<void> | null = null;
  let localAllowed = 0;
  let localRefused = 0;

  const flush = (): Promise<void> => {
    if (flushing) return flushing;
    flushing = (async () => {
      // Requests keep being counted here while a pass runs; a second pass takes those.
      if (await counts.addBack(now())) await counts.addBack(now());
      down = null;
      await counts.addBack(now());
    })()
      .catch(() => {
        // Still away (or away again): the rest stays pending.
        down ??= now();
      })
      .finally(() => {
        flushing = null;
      });
    return flushing;
  };

  redis.on('ready', () => {
    void flush();
  });

  return {
    shared() {
      const t = now();
      if (redis.status !== 'ready') {
        down ??= t;
        return false;
      }
      if (down !== null) {
        // Ready again (or a command failed on a ready connection): ask, at most once a second.
        if (t - lastProbe < PROBE_MS || flushing) return false;
        lastProbe = t;
        redis.ping().then(
          () => flush(),
          () => undefined,
        );
        return false;
      }
      instances.beat();
      return true;
    },
    failed() {
      down ??= now();
      lastProbe = now();
    },
    seen(limiter, key, consumed, expiresAt) {
      counts.seen(limiter, key, consumed, expiresAt);
    },
    consume(limiter, key, limit, expiresAt, unseen) {
      const t = now();
      const e = counts.get(limiter, key, t) ?? counts.begin(limiter, key, expiresAt, t);
      const left = e.known === null ? limit * unseen : Math.max(0, limit - e.known);
      const allowance = Math.floor(left / instances.count());
      if (e.local >= allowance) {
        localRefused++;
        return { left: -1, expiresAt: e.expiresAt };
      }
      e.local++;
      localAllowed++;
      return { left: allowance - e.local, expiresAt: e.expiresAt };
    },
    state() {
      // A scrape or /readyz keeps this instance counted even while it serves no limited request.
      if (redis.status === 'ready' && down === null) instances.beat();
      return {
        degraded: down !== null || redis.status !== 'ready',
        since: down,
        instances: instances.count(),
        pending: counts.pending(),
        localAllowed,
        localRefused,
      };
    },
    flush,
  };
}
