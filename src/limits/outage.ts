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

/**
 * The share of a daily quota a key this instance has not served today gets during an outage
 * (before dividing). A minute bucket's counter never read starts from its whole limit: its
 * window is a minute, so an outage costs at most one extra window's share per instance.
 */
export const UNSEEN_DAILY_SHARE = 0.1;
/** Instances heard from within this time count as sharing the limits. */
const INSTANCE_TTL_MS = 10 * 60_000;
const HEARTBEAT_MS = 2_000;
const PROBE_MS = 1_000;
/** Counters remembered or pending at most (a flood of client addresses during an outage). */
const MAX_ENTRIES = 200_000;

interface Entry {
  limiter: RateLimiterAbstract;
  key: string;
  /** Consumed points as Redis last told this instance; null: never read. */
  known: number | null;
  /** Allowed here while Redis was away, not yet added back. */
  local: number;
  /** After this time the counter no longer matters (its window or day is over). */
  expiresAt: number;
}

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
  const minInstances = Math.max(1, options.minInstances ?? 1);
  const id = randomUUID();
  const instancesKey = `${options.prefix}:instances`;
  const entries = new Map<string, Entry>();
  let instances = minInstances;
  let lastBeat = 0;
  let down: number | null = null;
  let lastProbe = 0;
  let flushing: Promise<void> | null = null;
  let localAllowed = 0;
  let localRefused = 0;

  const entryKey = (limiter: RateLimiterAbstract, key: string) => `${limiter.keyPrefix}\0${key}`;

  // On real time (the system clock), the one clock all instances share, whatever `now` is.
  const heartbeat = () => {
    const t = systemClock();
    if (t - lastBeat < HEARTBEAT_MS) return;
    lastBeat = t;
    redis
      .multi()
      .zadd(instancesKey, t, id)
      .zremrangebyscore(instancesKey, 0, t - INSTANCE_TTL_MS)
      .zcard(instancesKey)
      // The set goes when every instance has been silent for its window.
      .pexpire(instancesKey, INSTANCE_TTL_MS)
      .exec()
      .then((results) => {
        const counted = Number(results?.[2]?.[1]);
        if (Number.isFinite(counted)) instances = Math.max(minInstances, counted);
      })
      .catch(() => undefined);
  };

  let lastPrune = 0;
  const prune = (t: number) => {
    if (entries.size < MAX_ENTRIES || t - lastPrune < PROBE_MS) return;
    lastPrune = t;
    for (const [k, e] of entries)
      if (e.expiresAt <= t || (e.local === 0 && e.known === null)) entries.delete(k);
  };

  /** One pass: adds back every pending count; returns whether any was added. */
  const addBack = async (): Promise<boolean> => {
    const t = now();
    const due: Entry[] = [];
    for (const e of entries.values()) {
      if (e.local === 0) continue;
      // A counter whose window or day is over has nothing left to count against.
      if (e.expiresAt <= t) e.local = 0;
      else due.push(e);
    }
    for (let i = 0; i < due.length; i += 100) {
      await Promise.all(
        due.slice(i, i + 100).map(async (e) => {
          const points = e.local;
          const res = await e.limiter.penalty(e.key, points);
          e.local -= points;
          e.known = res.consumedPoints;
        }),
      );
    }
    return due.length > 0;
  };

  const flush = (): Promise<void> => {
    if (flushing) return flushing;
    flushing = (async () => {
      // Requests keep being counted here while a pass runs; a second pass takes those.
      if (await addBack()) await addBack();
      down = null;
      await addBack();
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
      heartbeat();
      return true;
    },
    failed() {
      down ??= now();
      lastProbe = now();
    },
    seen(limiter, key, consumed, expiresAt) {
      const k = entryKey(limiter, key);
      const e = entries.get(k);
      if (e) {
        e.known = consumed;
        e.expiresAt = expiresAt;
        return;
      }
      prune(now());
      if (entries.size >= MAX_ENTRIES) return;
      entries.set(k, { limiter, key, known: consumed, local: 0, expiresAt });
    },
    consume(limiter, key, limit, expiresAt, unseen) {
      const t = now();
      const k = entryKey(limiter, key);
      let e = entries.get(k);
      if (e && e.expiresAt <= t) {
        entries.delete(k);
        e = undefined;
      }
      if (!e) {
        prune(t);
        e = { limiter, key, known: null, local: 0, expiresAt };
        // Past the cap the request is still counted, just not remembered for the add-back.
        if (entries.size < MAX_ENTRIES) entries.set(k, e);
      }
      const left = e.known === null ? limit * unseen : Math.max(0, limit - e.known);
      const allowance = Math.floor(left / instances);
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
      if (redis.status === 'ready' && down === null) heartbeat();
      let pending = 0;
      for (const e of entries.values()) pending += e.local;
      return {
        degraded: down !== null || redis.status !== 'ready',
        since: down,
        instances,
        pending,
        localAllowed,
        localRefused,
      };
    },
    flush,
  };
}
