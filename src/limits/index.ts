/**
 * Rate limits (spec §8, CONTRACT §3), on rate-limiter-flexible:
 * - the key's daily quota, per UTC day, persisted: Redis when NETREP_REDIS_URL is set, else the
 *   store's own `rate_limits` table (SQLite or PostgreSQL), so quotas survive restarts;
 * - per-minute buckets (anonymous per client IP, warm-up per key, domain DNS per key):
 *   Redis when set, else process memory. The domain DNS bucket is per instance by spec, so it
 *   always lives in memory.
 * While Redis is away, each instance counts locally within its share of what was left and adds
 * that back when Redis returns (outage.ts); the store-backed daily counter keeps
 * rate-limiter-flexible's in-memory insurance limiter.
 */

import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { type Clock, DAY_MS } from '../core/clock.ts';
import type { Store } from '../store/index.ts';
import { tooMany } from './exceeded.ts';
import { createDailyLimiter, createMinuteLimiters } from './limiters.ts';
import type { MemoryWindow } from './memory-window.ts';
import { createOutageLedger, type OutageLedger, UNSEEN_DAILY_SHARE } from './outage.ts';
import type { LimitState, Limits, LimitsReadiness, MinuteBucket, MinuteBucketSpec } from './types.ts';

export { rateLimitHeaderValues } from './exceeded.ts';
export type { LimitState, Limits, MinuteBucket, MinuteBucketSpec } from './types.ts';

export const DEFAULT_MINUTE_BUCKETS: Record<MinuteBucket, MinuteBucketSpec> = {
  public: { points: 60 },
  reputation: { points: 60 },
  warmup: { points: 60 },
  domain_dns: { points: 30, perInstance: true },
  /** Dashboard sign-in attempts per client IP. */
  login: { points: 10 },
};

export interface LimitsOptions {
  store: Store;
  redis: Redis | null;
  clock: Clock;
  /** Key prefix in Redis and the rate_limits table (tests isolate with it). */
  prefix?: string;
  buckets?: Partial<Record<MinuteBucket, MinuteBucketSpec>>;
  /** At least this many instances share Redis (NETREP_LIMITS_INSTANCES; outage.ts counts them). */
  minInstances?: number;
}

/** The daily count from this instance's share while Redis is away (outage.ts). */
function localDaily(
  ledger: OutageLedger,
  daily: RateLimiterAbstract,
  clock: Clock,
  key: string,
  quota: number,
  reset: number,
): LimitState {
  const { left } = ledger.consume(daily, key, quota, reset * 1000, UNSEEN_DAILY_SHARE);
  const state = { limit: quota, remaining: Math.max(0, left), reset };
  if (left < 0) throw tooMany(state, reset - Math.floor(clock() / 1000));
  return state;
}

/** A shared minute bucket counted on this instance's share while Redis is away (outage.ts). */
function localMinute(
  ledger: OutageLedger,
  clock: Clock,
  limiter: RateLimiterAbstract,
  spec: MinuteBucketSpec,
  subject: string,
): LimitState {
  const t = clock();
  const { left, expiresAt } = ledger.consume(limiter, subject, spec.points, t + 60_000, 1);
  const state = { limit: spec.points, remaining: Math.max(0, left), reset: Math.ceil(expiresAt / 1000) };
  if (left < 0) throw tooMany(state, Math.ceil((expiresAt - t) / 1000));
  return state;
}

/** A per-instance bucket: counted in this process's window. */
function windowMinute(
  clock: Clock,
  window: MemoryWindow,
  spec: MinuteBucketSpec,
  subject: string,
): LimitState {
  const { consumed, msBeforeNext } = window.consume(subject);
  const state = {
    limit: spec.points,
    remaining: Math.max(0, spec.points - consumed),
    reset: Math.ceil((clock() + msBeforeNext) / 1000),
  };
  if (consumed > spec.points) throw tooMany(state, Math.ceil(msBeforeNext / 1000));
  return state;
}

/** A shared bucket counted in Redis; while Redis fails, on this instance's share (localMinute). */
async function sharedMinute(
  ledger: OutageLedger | null,
  clock: Clock,
  limiter: RateLimiterAbstract,
  spec: MinuteBucketSpec,
  subject: string,
): Promise<LimitState> {
  try {
    const res = await limiter.consume(subject, 1);
    ledger?.seen(limiter, subject, res.consumedPoints, clock() + res.msBeforeNext);
    // The window runs on real time inside rate-limiter-flexible; the reset is told on the app's clock.
    return {
      limit: spec.points,
      remaining: res.remainingPoints,
      reset: Math.ceil((clock() + res.msBeforeNext) / 1000),
    };
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) {
      if (!ledger) throw err;
      ledger.failed();
      return localMinute(ledger, clock, limiter, spec, subject);
    }
    ledger?.seen(limiter, subject, err.consumedPoints, clock() + err.msBeforeNext);
    const state = {
      limit: spec.points,
      remaining: 0,
      reset: Math.ceil((clock() + err.msBeforeNext) / 1000),
    };
    throw tooMany(state, Math.ceil(err.msBeforeNext / 1000));
  }
}

/** The Redis line of /readyz (Limits.readiness). */
function readinessOf(redis: Redis, ledger: OutageLedger): LimitsReadiness {
  const s = ledger.state();
  if (!s.degraded) return { name: 'redis', ok: true, detail: redis.status };
  const detail = `${redis.status}: limits counted on this instance (1/${s.instances} of what each counter had left), ${s.pending} to add back`;
  return { name: 'redis', ok: true, degraded: true, detail };
}

export function createLimits(options: LimitsOptions): Limits {
  const { store, redis, clock } = options;
  const prefix = options.prefix ?? 'netrep';
  const buckets = { ...DEFAULT_MINUTE_BUCKETS, ...options.buckets };
  const ledger = redis
    ? createOutageLedger({
        redis,
        prefix,
        now: clock,
        ...(options.minInstances !== undefined ? { minInstances: options.minInstances } : {}),
      })
    : null;
  const daily = createDailyLimiter(store, redis, prefix);
  const { minute, local } = createMinuteLimiters(buckets, redis, prefix);

  const nextUtcMidnight = () => Math.floor(clock() / DAY_MS + 1) * (DAY_MS / 1000);
  const dayNumber = () => Math.floor(clock() / DAY_MS);

  return {
    buckets,

    outage() {
      return ledger ? ledger.state() : null;
    },

    readiness() {
      return redis && ledger ? readinessOf(redis, ledger) : null;
    },

    async consumeDaily(keyId, quota) {
      if (quota === null) return null;
      const reset = nextUtcMidnight();
      const key = `${keyId}:${dayNumber()}`;
      if (ledger && !ledger.shared()) return localDaily(ledger, daily, clock, key, quota, reset);
      let consumed: number;
      try {
        const res = await daily.consume(key, 1);
        consumed = res.consumedPoints;
      } catch (err) {
        if (err instanceof RateLimiterRes) consumed = err.consumedPoints;
        else if (ledger) {
          ledger.failed();
          return localDaily(ledger, daily, clock, key, quota, reset);
        } else throw err;
      }
      ledger?.seen(daily, key, consumed, reset * 1000);
      const state = { limit: quota, remaining: Math.max(0, quota - consumed), reset };
      if (consumed > quota) throw tooMany(state, reset - Math.floor(clock() / 1000));
      return state;
    },

    consumeMinuteNow(bucket, subject) {
      const window = local.get(bucket);
      if (window === undefined) return undefined;
      // No LimitState and no error object: the caller asks only whether the point fitted.
      return window.consume(subject).consumed <= buckets[bucket].points;
    },

    async consumeMinute(bucket, subject) {
      const spec = buckets[bucket];
      const window = local.get(bucket);
      if (window !== undefined) return windowMinute(clock, window, spec, subject);
      const limiter = minute.get(bucket);
      if (!limiter) throw new Error(`unknown bucket ${bucket}`);
      if (ledger && !ledger.shared()) return localMinute(ledger, clock, limiter, spec, subject);
      return await sharedMinute(ledger, clock, limiter, spec, subject);
    },
  };
}

export { registerLimitsMetrics } from './metrics.ts';
