import { DAY_MS } from '../core/clock.ts';
import type { WarmupStatus } from './types.ts';

/** The UTC calendar day of an instant as a day number since the epoch. */
export function utcDayIndex(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/**
 * CONTRACT §7: days_sending counts from the first production telemetry observation with
 * volume_24h > 0. The UTC calendar day of that observation is day 1 (spec §3.1 numbers the
 * volume table from day 1); 0 means cold. A first observation dated after `now` (clock skew)
 * is day 1.
 */
export function daysSending(firstSendingAt: number | null, now: number): number {
  if (firstSendingAt === null) return 0;
  return Math.max(1, utcDayIndex(now) - utcDayIndex(firstSendingAt) + 1);
}

export const DAMAGED_BELOW = 30;
export const WARM_FROM_SCORE = 60;
export const WARMING_LAST_DAY = 30;
export const ESTABLISHED_FROM_DAY = 90;

/**
 * Spec §3.1, with the overlaps and gaps it leaves resolved (README):
 * damaged (listed or score < 30) wins over everything, cold when nothing was sent,
 * warming on days 1-30 and afterwards while the score is below 60,
 * warm on days 31-89 with score 60+, established from day 90 with score 60+.
 */
export function warmupStatus(input: { daysSending: number; score: number; listed: boolean }): WarmupStatus {
  if (input.listed || input.score < DAMAGED_BELOW) return 'damaged';
  if (input.daysSending <= 0) return 'cold';
  if (input.daysSending <= WARMING_LAST_DAY || input.score < WARM_FROM_SCORE) return 'warming';
  if (input.daysSending < ESTABLISHED_FROM_DAY) return 'warm';
  return 'established';
}

/**
 * CONTRACT §7: the warm-up starts with the first production telemetry observation whose
 * volume_24h is above 0. Synthetic rows never count. Null when there is none (cold).
 */
export function firstSendingAt(
  telemetry: readonly { observedAt: number; volume24h: number | null; synthetic: boolean }[],
): number | null {
  let first: number | null = null;
  for (const t of telemetry) {
    if (t.synthetic || t.volume24h === null || t.volume24h <= 0) continue;
    first = first === null ? t.observedAt : Math.min(first, t.observedAt);
  }
  return first;
}
