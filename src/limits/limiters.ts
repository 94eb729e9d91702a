/**
 * The counters behind the limits: the daily quota in Redis when it is set, else in the store's
 * `rate_limits` table (SQLite or PostgreSQL, with rate-limiter-flexible's in-memory insurance
 * limiter); the per-minute buckets in Redis, or in process memory when per instance or without Redis.
 */
import type { Redis } from 'ioredis';
import {
  type IRateLimiterStoreOptions,
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterSQLite,
} from 'rate-limiter-flexible';
import type { Store } from '../store/index.ts';
import { createMemoryWindow, type MemoryWindow } from './memory-window.ts';
import type { MinuteBucket, MinuteBucketSpec } from './types.ts';

/** Points well above any tier: the real quota is checked against `consumedPoints`. */
const DAILY_CEILING = 2_000_000_000;
/** One counter per key per UTC day; the key name carries the day, the entry expires after two days. */
const DAILY_DURATION_S = 2 * 86_400;

const storeOpts = (
  prefix: string,
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
const redisLimiter = (prefix: string, keyPrefix: string, points: number, duration: number, client: Redis) =>
  new RateLimiterRedis({ keyPrefix: `${prefix}:${keyPrefix}`, points, duration, storeClient: client });

export function createDailyLimiter(store: Store, redis: Redis | null, prefix: string): RateLimiterAbstract {
  if (redis) return redisLimiter(prefix, 'daily', DAILY_CEILING, DAILY_DURATION_S, redis);
  if (store.sqlite)
    return new RateLimiterSQLite({
      ...storeOpts(prefix, 'daily', DAILY_CEILING, DAILY_DURATION_S),
      storeClient: store.sqlite,
      storeType: 'better-sqlite3',
      tableName: 'rate_limits',
      tableCreated: true,
    });
  if (store.pgPool)
    return new RateLimiterPostgres({
      ...storeOpts(prefix, 'daily', DAILY_CEILING, DAILY_DURATION_S),
      storeClient: store.pgPool,
      tableName: 'rate_limits',
      tableCreated: true,
    });
  throw new Error('no backend for daily quotas');
}

/** Shared buckets live in Redis when it is set; the others in this process (no timer per subject). */
export function createMinuteLimiters(
  buckets: Record<MinuteBucket, MinuteBucketSpec>,
  redis: Redis | null,
  prefix: string,
): { minute: Map<MinuteBucket, RateLimiterAbstract>; local: Map<MinuteBucket, MemoryWindow> } {
  const minute = new Map<MinuteBucket, RateLimiterAbstract>();
  const local = new Map<MinuteBucket, MemoryWindow>();
  for (const [name, spec] of Object.entries(buckets) as [MinuteBucket, MinuteBucketSpec][]) {
    if (redis && !spec.perInstance) minute.set(name, redisLimiter(prefix, name, spec.points, 60, redis));
    else local.set(name, createMemoryWindow(60_000));
  }
  return { minute, local };
}
