/**
 * The retry schedule: exponential back-off with jitter. With the defaults (base 60 s, 7
 * attempts) the waits are about 1, 2, 4, 8, 16 and 32 minutes: 7 attempts over about an hour,
 * then the delivery is dead. Jitter (±20 %) keeps a burst of failures from retrying in step.
 */
export interface RetryPolicy {
  baseMs: number;
  maxAttempts: number;
}

/** When to try again after `attemptsMade` failed attempts, or null when the delivery is dead. */
export function nextAttemptAt(
  policy: RetryPolicy,
  attemptsMade: number,
  now: number,
  random: () => number,
): number | null {
  if (attemptsMade >= policy.maxAttempts) return null;
  const wait = policy.baseMs * 2 ** (attemptsMade - 1) * (0.8 + 0.4 * random());
  return now + Math.max(1, Math.round(wait));
}
