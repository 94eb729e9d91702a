/**
 * How many instances share Redis (outage.ts divides a counter's remainder by it): each instance
 * writes a heartbeat into a sorted set at most every 2 s, and the ones heard from in the last
 * 10 minutes are counted, never fewer than the configured floor.
 */
import type { Redis } from 'ioredis';
import { systemClock } from '../core/clock.ts';

/** Instances heard from within this time count as sharing the limits. */
const INSTANCE_TTL_MS = 10 * 60_000;
const HEARTBEAT_MS = 2_000;

export interface InstanceCount {
  /** Writes this instance's heartbeat (at most every 2 s) and reads the count it gets back. */
  beat(): void;
  /** Instances counted as sharing the limits (at least the floor). */
  count(): number;
}

export function createInstanceCount(options: {
  redis: Redis;
  key: string;
  id: string;
  minInstances: number;
}): InstanceCount {
  const { redis, key, id, minInstances } = options;
  let instances = minInstances;
  let lastBeat = 0;
  return {
    // On real time (the system clock), the one clock all instances share, whatever the ledger's is.
    beat() {
      const t = systemClock();
      if (t - lastBeat < HEARTBEAT_MS) return;
      lastBeat = t;
      redis
        .multi()
        .zadd(key, t, id)
        .zremrangebyscore(key, 0, t - INSTANCE_TTL_MS)
        .zcard(key)
        // The set goes when every instance has been silent for its window.
        .pexpire(key, INSTANCE_TTL_MS)
        .exec()
        .then((results) => {
          const counted = Number(results?.[2]?.[1]);
          if (Number.isFinite(counted)) instances = Math.max(minInstances, counted);
        })
        .catch(() => undefined);
    },
    count: () => instances,
  };
}
