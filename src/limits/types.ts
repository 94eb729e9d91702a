/** The answer shapes of limits/ and the public interface `createLimits` returns. */
import type { OutageState } from './outage.ts';

export interface LimitState {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
}

export type MinuteBucket = 'public' | 'reputation' | 'warmup' | 'domain_dns' | 'login';

export interface MinuteBucketSpec {
  points: number;
  /** Keep in process memory even when Redis is configured (per-instance limits). */
  perInstance?: boolean;
}

/** The Redis line of /readyz. */
export interface LimitsReadiness {
  name: string;
  ok: boolean;
  detail: string;
  degraded?: boolean;
}

export interface Limits {
  buckets: Record<MinuteBucket, MinuteBucketSpec>;
  /** Whether limits are shared through Redis or counted here while it is away; null without Redis. */
  outage(): OutageState | null;
  /**
   * The Redis line of /readyz: ready while Redis answers, and still ok (the API serves) but
   * `degraded` while limits are counted on this instance; null without Redis.
   */
  readiness(): LimitsReadiness | null;
  /**
   * Counts one request against the key's daily quota; throws RATE_LIMIT_EXCEEDED past it.
   * `quota` null (enterprise) is unlimited and not counted.
   */
  consumeDaily(keyId: number, quota: number | null): Promise<LimitState | null>;
  /** Counts one request in a per-minute bucket for `subject` (client IP or key id). */
  consumeMinute(bucket: MinuteBucket, subject: string): Promise<LimitState>;
  /**
   * The same point, counted now where the bucket is this instance's memory: true counted, false
   * past the limit (the point counts, as in consumeMinute). undefined: the bucket is shared
   * (Redis), so nothing was counted and consumeMinute must be asked.
   */
  consumeMinuteNow(bucket: MinuteBucket, subject: string): boolean | undefined;
}
