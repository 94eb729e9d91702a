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
import {
  type IRateLimiterStoreOptions,
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  RateLimiterSQLite,
} from 'rate-limiter-flexible';
import { type Clock, DAY_MS } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import type { Store } from '../store/index.ts';
import { createMemoryWindow, type MemoryWindow } from './memory-window.ts';
import { createOutageLedger, type OutageState, UNSEEN_DAILY_SHARE } from './outage.ts';

export type { OutageState } from './outage.ts';

export interface LimitState {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
}

/** The X-RateLimit-* headers of a limit state (spec §8), for every path that answers. */
export function rateLimitHeaderValues(state: LimitState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset': String(state.reset),
  };
}

export type MinuteBucket = 'public' | 'reputation' | 'warmup' | 'domain_dns' | 'login';

export interface MinuteBucketSpec {
  points: number;
  /** Keep in process memory even when Redis is configured (per-instance limits). */
  perInstance?: boolean;
}

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

/** Points well above any tier: the real quota is checked against `consumedPoints`. */
const DAILY_CEILING = 2_000_000_000;

export function createLimits(options: LimitsOptions) {
  const { store, redis, clock } = options;
  const prefix = options.prefix ?? 'netrep';
  const buckets = { ...DEFAULT_MINUTE_BUCKETS, ...options.buckets };

  const storeOpts = (
    keyPrefix: string,
    points: number,
    duration: number,
  ): Omit<IRateLimiterStoreOptions, 'storeClient'> => ({
    keyPrefix: `${prefix}:${keyPrefix}`,
    points,
    duration,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${prefix}:${keyPrefix}:ins`, points, duration }),
  });
  // Redis limiters have no insurance limiter: the outage ledger counts while Redis is away.
  const redisOpts = (keyPrefix: string, points: number, duration: number, client: Redis) => ({
    keyPrefix: `${prefix}:${keyPrefix}`,
    points,
    duration,
    storeClient: client,
  });
  const ledger = redis
    ? createOutageLedger({
        redis,
        prefix,
        now: clock,
        ...(options.minInstances !== undefined ? { minInstances: options.minInstances } : {}),
      })
    : null;

  // One counter per key per UTC day; the key name carries the day, the entry expires after two days.
  const dailyDuration = 2 * 86_400;
  let daily: RateLimiterAbstract;
  if (redis) {
    daily = new RateLimiterRedis(redisOpts('daily', DAILY_CEILING, dailyDuration, redis));
  } else if (store.sqlite) {
    daily = new RateLimiterSQLite({
      ...storeOpts('daily', DAILY_CEILING, dailyDuration),
      storeClient: store.sqlite,
      storeType: 'better-sqlite3',
      tableName: 'rate_limits',
      tableCreated: true,
    });
  } else if (store.pgPool) {
    daily = new RateLimiterPostgres({
      ...storeOpts('daily', DAILY_CEILING, dailyDuration),
      storeClient: store.pgPool,
      tableName: 'rate_limits',
      tableCreated: true,
    });
  } else {
    throw new Error('no backend for daily quotas');
  }

  // Shared buckets live in Redis when it is set; the others in this process (no timer per subject).
  const minute = new Map<MinuteBucket, RateLimiterAbstract>();
  const local = new Map<MinuteBucket, MemoryWindow>();
  for (const [name, spec] of Object.entries(buckets) as [MinuteBucket, MinuteBucketSpec][]) {
    if (redis && !spec.perInstance) {
      minute.set(name, new RateLimiterRedis(redisOpts(name, spec.points, 60, redis)));
    } else {
      local.set(name, createMemoryWindow(60_000));
    }
  }

  const nextUtcMidnight = () => Math.floor(clock() / DAY_MS + 1) * (DAY_MS / 1000);
  const dayNumber = () => Math.floor(clock() / DAY_MS);

  const tooMany = (state: LimitState, retryAfterSeconds: number) =>
    new AppError('RATE_LIMIT_EXCEEDED', undefined, {
      headers: {
        'retry-after': String(Math.max(1, retryAfterSeconds)),
        ...rateLimitHeaderValues({ ...state, remaining: 0 }),
      },
    });

  /** The daily count from this instance's share while Redis is away (outage.ts). */
  const localDaily = (key: string, quota: number, reset: number): LimitState => {
    const { left } = (ledger as NonNullable<typeof ledger>).consume(
      daily,
      key,
      quota,
      reset * 1000,
      UNSEEN_DAILY_SHARE,
    );
    const state = { limit: quota, remaining: Math.max(0, left), reset };
    if (left < 0) throw tooMany(state, reset - Math.floor(clock() / 1000));
    return state;
  };

  const localMinute = (limiter: RateLimiterAbstract, spec: MinuteBucketSpec, subject: string): LimitState => {
    const t = clock();
    const { left, expiresAt } = (ledger as NonNullable<typeof ledger>).consume(
      limiter,
      subject,
      spec.points,
      t + 60_000,
      1,
    );
    const state = { limit: spec.points, remaining: Math.max(0, left), reset: Math.ceil(expiresAt / 1000) };
    if (left < 0) throw tooMany(state, Math.ceil((expiresAt - t) / 1000));
    return state;
  };

  /** A per-instance bucket: counted in this process's window. */
  const windowMinute = (window: MemoryWindow, spec: MinuteBucketSpec, subject: string): LimitState => {
    const { consumed, msBeforeNext } = window.consume(subject);
    const state = {
      limit: spec.points,
      remaining: Math.max(0, spec.points - consumed),
      reset: Math.ceil((clock() + msBeforeNext) / 1000),
    };
    if (consumed > spec.points) throw tooMany(state, Math.ceil(msBeforeNext / 1000));
    return state;
  };

  /** A shared bucket counted in Redis; while Redis fails, on this instance's share (localMinute). */
  const sharedMinute = async (
    limiter: RateLimiterAbstract,
    spec: MinuteBucketSpec,
    subject: string,
  ): Promise<LimitState> => {
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
        return localMinute(limiter, spec, subject);
      }
      ledger?.seen(limiter, subject, err.consumedPoints, clock() + err.msBeforeNext);
      const state = {
        limit: spec.points,
        remaining: 0,
        reset: Math.ceil((clock() + err.msBeforeNext) / 1000),
      };
      throw tooMany(state, Math.ceil(err.msBeforeNext / 1000));
    }
  };

  return {
    buckets,

    /** Whether limits are shared through Redis or counted here while it is away; null without Redis. */
    outage(): OutageState | null {
      return ledger ? ledger.state() : null;
    },

    /**
     * The Redis line of /readyz: ready while Redis answers, and still ok (the API serves) but
     * `degraded` while limits are counted on this instance; null without Redis.
     */
    readiness(): { name: string; ok: boolean; detail: string; degraded?: boolean } | null {
      if (!redis || !ledger) return null;
      const s = ledger.state();
      if (!s.degraded) return { name: 'redis', ok: true, detail: redis.status };
      const detail = `${redis.status}: limits counted on this instance (1/${s.instances} of what each counter had left), ${s.pending} to add back`;
      return { name: 'redis', ok: true, degraded: true, detail };
    },

    /**
     * Counts one request against the key's daily quota; throws RATE_LIMIT_EXCEEDED past it.
     * `quota` null (enterprise) is unlimited and not counted.
     */
    async consumeDaily(keyId: number, quota: number | null): Promise<LimitState | null> {
      if (quota === null) return null;
      const reset = nextUtcMidnight();
      const key = `${keyId}:${dayNumber()}`;
      if (ledger && !ledger.shared()) return localDaily(key, quota, reset);
      let consumed: number;
      try {
        const res = await daily.consume(key, 1);
        consumed = res.consumedPoints;
      } catch (err) {
        if (err instanceof RateLimiterRes) consumed = err.consumedPoints;
        else if (ledger) {
          ledger.failed();
          return localDaily(key, quota, reset);
        } else throw err;
      }
      ledger?.seen(daily, key, consumed, reset * 1000);
      const state = { limit: quota, remaining: Math.max(0, quota - consumed), reset };
      if (consumed > quota) throw tooMany(state, reset - Math.floor(clock() / 1000));
      return state;
    },

    /** Counts one request in a per-minute bucket for `subject` (client IP or key id). */
    async consumeMinute(bucket: MinuteBucket, subject: string): Promise<LimitState> {
      const spec = buckets[bucket];
      const window = local.get(bucket);
      if (window !== undefined) return windowMinute(window, spec, subject);
      const limiter = minute.get(bucket);
      if (!limiter) throw new Error(`unknown bucket ${bucket}`);
      if (ledger && !ledger.shared()) return localMinute(limiter, spec, subject);
      return await sharedMinute(limiter, spec, subject);
    },
  };
}

export type Limits = ReturnType<typeof createLimits>;
export { registerLimitsMetrics } from './metrics.ts';
