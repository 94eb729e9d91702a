import type { GraduationState, PoolClassificationItem, PoolTier, WarmupStatus } from './types.ts';

export interface PoolInput {
  ip: string;
  reputationScore: number;
  warmupStatus: WarmupStatus;
  /** Days sending of the warm-up answer, used in the recommendation text. */
  daysSending: number;
  listed: boolean;
  /** Latest production volume_24h; null when no observation carried one. */
  volume24h: number | null;
  fcrdns: 'pass' | 'fail' | 'unknown';
  /** Today's recommended daily volume of the warm-up answer. */
  recommendedDailyVolume: number;
}

const WARMED: ReadonlySet<WarmupStatus> = new Set(['warm', 'established']);

/**
 * Spec §3.2 with CONTRACT §7 precedence: suspend (listed or score < 30), then
 * dedicated_candidate (score 80+, warm or established, latest volume_24h 5000+), then seasoned
 * (score 70+, warm or established), else probation. An address without reputation data is
 * cold and therefore on probation.
 */
export function poolTier(input: PoolInput): PoolTier {
  const score = input.reputationScore;
  if (input.listed || score < 30) return 'suspend';
  const warmed = WARMED.has(input.warmupStatus);
  if (score >= 80 && warmed && (input.volume24h ?? 0) >= 5_000) return 'dedicated_candidate';
  if (score >= 70 && warmed) return 'seasoned';
  return 'probation';
}

function recommendationFor(tier: PoolTier, input: PoolInput): string {
  const score = input.reputationScore;
  switch (tier) {
    case 'suspend':
      return input.listed
        ? 'Suspend sending: the IP is actively blocklisted. Resolve and delist it before sending again.'
        : `Suspend sending: reputation score ${score} is below 30. Find the cause in the reputation factors first.`;
    case 'dedicated_candidate':
      return `Candidate for a dedicated IP: score ${score}, ${input.warmupStatus}, ${input.volume24h} messages in the last 24 h.`;
    case 'seasoned':
      return `Keep in the seasoned pool: score ${score}, ${input.warmupStatus}.`;
    case 'probation':
      if (input.warmupStatus === 'cold') {
        return `Not sending yet: start the warm-up at ${input.recommendedDailyVolume} messages a day.`;
      }
      if (input.warmupStatus === 'warming' && score >= 60) {
        return `Warming up (day ${input.daysSending}): stay at ${input.recommendedDailyVolume} messages a day.`;
      }
      return score < 70
        ? `Keep on probation: score ${score} is below 70; send at most ${input.recommendedDailyVolume} messages a day.`
        : `Keep on probation until the warm-up completes (day ${input.daysSending}).`;
  }
}

export function classifyPool(input: PoolInput): PoolClassificationItem {
  const tier = poolTier(input);
  let recommendation = recommendationFor(tier, input);
  if (input.fcrdns === 'fail') {
    recommendation += ' FCrDNS fails: publish a PTR name that resolves back to this IP.';
  }
  return {
    ip: input.ip,
    tier,
    reputation_score: input.reputationScore,
    warmup_status: input.warmupStatus,
    listed: input.listed,
    fcrdns_status: input.fcrdns,
    recommendation,
  };
}

/**
 * Spec §3.2/§6: a persisted IP leaving probation because it now meets seasoned emits one
 * graduation event. dedicated_candidate also meets every seasoned criterion, so
 * probation -> dedicated_candidate graduates too. A first classification (no previous tier)
 * and every other move, including suspend -> seasoned, emit nothing.
 */
export function isGraduation(previousTier: PoolTier | null, newTier: PoolTier): boolean {
  return previousTier === 'probation' && (newTier === 'seasoned' || newTier === 'dedicated_candidate');
}

/** The aggregate fields a graduation event carries (spec §6: only aggregate classification fields). */
export function graduationState(previousTier: PoolTier, item: PoolClassificationItem): GraduationState {
  return {
    previous_tier: previousTier,
    tier: item.tier,
    reputation_score: item.reputation_score,
    warmup_status: item.warmup_status,
    listed: item.listed,
    fcrdns_status: item.fcrdns_status,
  };
}
