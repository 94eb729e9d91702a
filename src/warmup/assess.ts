import { DAY_MS, utcDay } from '../core/clock.ts';
import { daysSending, utcDayIndex, warmupStatus } from './status.ts';
import type { WarmupData } from './types.ts';
import { adjustVolume, autoPause, baseVolume, stepIndex, VOLUME_STEPS } from './volume.ts';

export interface WarmupInput {
  ip: string;
  /** First production telemetry observation with volume_24h > 0; null when none (cold). */
  firstSendingAt: number | null;
  reputationScore: number;
  listed: boolean;
}

/**
 * The warm-up answer of spec §2.6. A cold address gets the day-1 guidance as if it started
 * sending today (volume 50, next step on today + 7 days). next_milestone_volume carries the
 * same score adjustment as the current volume; both are null past the last step (day 61+).
 */
export function assessWarmup(input: WarmupInput, now: number): WarmupData {
  const days = daysSending(input.firstSendingAt, now);
  const day = Math.max(1, days);
  const dayOne = input.firstSendingAt === null ? utcDayIndex(now) : utcDayIndex(now) - (day - 1);
  const next = VOLUME_STEPS[stepIndex(day) + 1];
  const pause = autoPause(input.reputationScore, input.listed);
  return {
    ip: input.ip,
    status: warmupStatus({ daysSending: days, score: input.reputationScore, listed: input.listed }),
    days_sending: days,
    reputation_score: input.reputationScore,
    recommended_daily_volume: adjustVolume(baseVolume(day), input.reputationScore, input.listed),
    auto_pause_recommended: pause.recommended,
    auto_pause_reason: pause.reason,
    next_milestone: next === undefined ? null : utcDay((dayOne + next.fromDay - 1) * DAY_MS),
    next_milestone_volume:
      next === undefined ? null : adjustVolume(next.volume, input.reputationScore, input.listed),
  };
}
