/**
 * Rate limits (spec §8, CONTRACT §3), on rate-limiter-flexible:
 * - the key's daily quota, per UTC day, persisted: Redis when NETREP_REDIS_URL is set, else the
 *   store's own `rate_limits` table (SQLite or PostgreSQL), so quotas survive restarts;
 * - per-minute buckets (anonymous per client IP, warm-up per key, domain DNS per key):
 *   Redis when set, else process memory. The domain DNS bucket is per instance by spec, so it
 *   always lives in memory.
 * When the shared backend fails, an in-memory insurance limiter keeps limiting.
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

  // One counter per key per UTC day; the key name carries the day, the entry expires after two days.
  const dailyDuration = 2 * 86_400;
  let daily: RateLimiterAbstract;
  if (redis) {
    daily = new RateLimiterRedis({ ...storeOpts('daily', DAILY_CEILING, dailyDuration), storeClient: redis });
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
      minute.set(name, new RateLimiterRedis({ ...storeOpts(name, spec.points, 60), storeClient: redis }));
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

  return {
    buckets,

    /**
     * Counts one request against the key's daily quota; throws RATE_LIMIT_EXCEEDED past it.
     * `quota` null (enterprise) is unlimited and not counted.
     */
    async consumeDaily(keyId: number, quota: number | null): Promise<LimitState | null> {
      if (quota === null) return null;
      const reset = nextUtcMidnight();
      let consumed: number;
      try {
        const res = await daily.consume(`${keyId}:${dayNumber()}`, 1);
        consumed = res.consumedPoints;
      } catch (err) {
        if (err instanceof RateLimiterRes) consumed = err.consumedPoints;
        else throw err;
      }
      const state = { limit: quota, remaining: Math.max(0, quota - consumed), reset };
      if (consumed > quota) throw tooMany(state, reset - Math.floor(clock() / 1000));
      return state;
    },

    /** Counts one request in a per-minute bucket for `subject` (client IP or key id). */
    async consumeMinute(bucket: MinuteBucket, subject: string): Promise<LimitState> {
      const spec = buckets[bucket];
      const window = local.get(bucket);
      if (window !== undefined) {
        const { consumed, msBeforeNext } = window.consume(subject);
        const state = {
          limit: spec.points,
          remaining: Math.max(0, spec.points - consumed),
          reset: Math.ceil((clock() + msBeforeNext) / 1000),
        };
        if (consumed > spec.points) throw tooMany(state, Math.ceil(msBeforeNext / 1000));
        return state;
      }
      const limiter = minute.get(bucket);
      if (!limiter) throw new Error(`unknown bucket ${bucket}`);
      try {
        const res = await limiter.consume(subject, 1);
        // The window runs on real time inside rate-limiter-flexible; the reset is told on the app's clock.
        return {
          limit: spec.points,
          remaining: res.remainingPoints,
          reset: Math.ceil((clock() + res.msBeforeNext) / 1000),
        };
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        const state = {
          limit: spec.points,
          remaining: 0,
          reset: Math.ceil((clock() + err.msBeforeNext) / 1000),
        };
        throw tooMany(state, Math.ceil(err.msBeforeNext / 1000));
      }
    },
  };
}

export type Limits = ReturnType<typeof createLimits>;
