/** Spec §3.1 recommended daily volume by days sending, and its score adjustments. */

export interface VolumeStep {
  /** First day of the step (day 1 is the first sending day). */
  fromDay: number;
  volume: number;
}

export const VOLUME_STEPS: readonly VolumeStep[] = [
  { fromDay: 1, volume: 50 },
  { fromDay: 8, volume: 200 },
  { fromDay: 15, volume: 500 },
  { fromDay: 22, volume: 1_000 },
  { fromDay: 31, volume: 2_500 },
  { fromDay: 46, volume: 5_000 },
  { fromDay: 61, volume: 10_000 },
];

/** Index into VOLUME_STEPS for a day; a cold address (day 0) is treated as day 1. */
export function stepIndex(day: number): number {
  let index = 0;
  VOLUME_STEPS.forEach((step, i) => {
    if (day >= step.fromDay) index = i;
  });
  return index;
}

/** The table volume for a warm-up day, before any adjustment. */
export function baseVolume(day: number): number {
  return (VOLUME_STEPS[stepIndex(day)] as VolumeStep).volume;
}

/**
 * Spec §3.1: listed or score below 30 -> 0 (do not send); below 40 -> quartered; 40-49 ->
 * halved; 50 and above unchanged. Fractions are rounded down (never more than the rule allows).
 */
export function adjustVolume(volume: number, score: number, listed: boolean): number {
  if (listed || score < 30) return 0;
  if (score < 40) return Math.floor(volume / 4);
  if (score < 50) return Math.floor(volume / 2);
  return volume;
}

/** Spec §3.1: auto-pause when the score is below 40 or the address is actively blocklisted. */
export function autoPause(score: number, listed: boolean): { recommended: boolean; reason: string | null } {
  const reasons: string[] = [];
  if (listed) reasons.push('the IP is actively blocklisted');
  if (score < 40) reasons.push(`reputation score ${score} is below 40`);
  return { recommended: reasons.length > 0, reason: reasons.length > 0 ? reasons.join('; ') : null };
}
