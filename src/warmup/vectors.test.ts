import { describe, expect, it } from 'vitest';
import { loadWarmupVectors } from '../../test/helpers/reputation-vectors.ts';
import { assessWarmup } from './assess.ts';
import { classifyPool } from './pool.ts';

const vectors = loadWarmupVectors();

describe('warm-up and pool vectors (test/vectors/warmup-vectors.json)', () => {
  it('covers every volume step boundary', () => {
    const days = new Set(vectors.map((v) => v.expected.days_sending));
    for (const d of [0, 1, 7, 8, 14, 15, 21, 22, 30, 31, 45, 46, 60, 61, 89, 90]) expect(days).toContain(d);
  });

  it.each(vectors.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const now = Date.parse(v.input.now);
    const first = v.input.first_sending_at === null ? null : Date.parse(v.input.first_sending_at);
    const warmup = assessWarmup(
      {
        ip: '198.51.100.7',
        firstSendingAt: first,
        reputationScore: v.input.reputation_score,
        listed: v.input.listed,
      },
      now,
    );
    const { tier, ...expected } = v.expected;
    expect({
      status: warmup.status,
      days_sending: warmup.days_sending,
      recommended_daily_volume: warmup.recommended_daily_volume,
      auto_pause_recommended: warmup.auto_pause_recommended,
      next_milestone: warmup.next_milestone,
      next_milestone_volume: warmup.next_milestone_volume,
    }).toEqual(expected);
    expect(warmup.auto_pause_reason === null).toBe(!v.expected.auto_pause_recommended);
    const item = classifyPool({
      ip: warmup.ip,
      reputationScore: warmup.reputation_score,
      warmupStatus: warmup.status,
      daysSending: warmup.days_sending,
      listed: v.input.listed,
      volume24h: v.input.volume_24h,
      fcrdns: v.input.fcrdns,
      recommendedDailyVolume: warmup.recommended_daily_volume,
    });
    expect(item.tier).toBe(tier);
    expect(item.fcrdns_status).toBe(v.input.fcrdns);
  });
});
