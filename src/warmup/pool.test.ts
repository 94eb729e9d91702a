import { describe, expect, it } from 'vitest';
import { classifyPool, graduationState, isGraduation, type PoolInput, poolTier } from './pool.ts';
import type { PoolTier, WarmupStatus } from './types.ts';

function input(over: Partial<PoolInput> = {}): PoolInput {
  return {
    ip: '198.51.100.7',
    reputationScore: 75,
    warmupStatus: 'warm',
    daysSending: 40,
    listed: false,
    volume24h: 1000,
    fcrdns: 'pass',
    recommendedDailyVolume: 2500,
    ...over,
  };
}

describe('poolTier: precedence suspend, dedicated_candidate, seasoned, probation', () => {
  it.each([
    [
      'listed wins over everything',
      { listed: true, reputationScore: 95, volume24h: 50000, warmupStatus: 'damaged' },
      'suspend',
    ],
    ['score 29', { reputationScore: 29, warmupStatus: 'damaged' }, 'suspend'],
    ['score 30 warm', { reputationScore: 30 }, 'probation'],
    ['score 80, warm, 5000', { reputationScore: 80, volume24h: 5000 }, 'dedicated_candidate'],
    [
      'score 80, established, 5000',
      { reputationScore: 80, volume24h: 5000, warmupStatus: 'established' },
      'dedicated_candidate',
    ],
    ['score 80, warm, 4999', { reputationScore: 80, volume24h: 4999 }, 'seasoned'],
    ['score 80, warm, no volume', { reputationScore: 80, volume24h: null }, 'seasoned'],
    ['score 79, warm, 9000', { reputationScore: 79, volume24h: 9000 }, 'seasoned'],
    [
      'score 80, warming, 9000',
      { reputationScore: 80, volume24h: 9000, warmupStatus: 'warming' },
      'probation',
    ],
    ['score 70, warm', { reputationScore: 70 }, 'seasoned'],
    ['score 69, warm', { reputationScore: 69 }, 'probation'],
    ['score 60, established', { reputationScore: 60, warmupStatus: 'established' }, 'probation'],
    [
      'cold (no reputation data)',
      { reputationScore: 60, warmupStatus: 'cold', volume24h: null },
      'probation',
    ],
    ['warming at 85', { reputationScore: 85, warmupStatus: 'warming' }, 'probation'],
  ] as const)('%s -> %s', (_label, over, tier) => {
    expect(poolTier(input(over as Partial<PoolInput>))).toBe(tier);
  });
});

describe('classifyPool', () => {
  it('reports the inputs and a recommendation for each tier', () => {
    const cases: [Partial<PoolInput>, RegExp][] = [
      [{ listed: true, warmupStatus: 'damaged' as WarmupStatus }, /blocklisted/],
      [{ reputationScore: 12, warmupStatus: 'damaged' as WarmupStatus }, /score 12 is below 30/],
      [{ reputationScore: 90, volume24h: 8000 }, /dedicated IP: score 90, warm, 8000 messages/],
      [{}, /seasoned pool: score 75, warm/],
      [{ warmupStatus: 'cold', daysSending: 0, recommendedDailyVolume: 50 }, /start the warm-up at 50/],
      [{ warmupStatus: 'warming', daysSending: 12, recommendedDailyVolume: 200 }, /day 12.*200 messages/],
      [{ reputationScore: 65 }, /score 65 is below 70/],
    ];
    for (const [over, text] of cases) {
      const item = classifyPool(input(over));
      expect(item.recommendation).toMatch(text);
      expect(item).toMatchObject({ ip: '198.51.100.7', listed: over.listed ?? false, fcrdns_status: 'pass' });
    }
  });

  it('adds FCrDNS advice when the check fails, without changing the tier', () => {
    const item = classifyPool(input({ fcrdns: 'fail' }));
    expect(item.tier).toBe('seasoned');
    expect(item.fcrdns_status).toBe('fail');
    expect(item.recommendation).toMatch(/FCrDNS fails/);
  });
});

describe('isGraduation', () => {
  const TIERS: PoolTier[] = ['probation', 'seasoned', 'dedicated_candidate', 'suspend'];
  const graduating = new Set(['probation>seasoned', 'probation>dedicated_candidate']);

  it('is true only for probation -> seasoned and probation -> dedicated_candidate', () => {
    for (const from of TIERS) {
      for (const to of TIERS)
        expect(isGraduation(from, to), `${from} -> ${to}`).toBe(graduating.has(`${from}>${to}`));
    }
  });

  it('a first classification (not persisted before) never graduates', () => {
    for (const to of TIERS) expect(isGraduation(null, to)).toBe(false);
  });

  it('classify probation, then seasoned, then seasoned again: exactly one event', () => {
    const steps = [
      input({ reputationScore: 65 }),
      input({ reputationScore: 72 }),
      input({ reputationScore: 74 }),
    ];
    let previous: PoolTier | null = null;
    let events = 0;
    for (const step of steps) {
      const tier = classifyPool(step).tier;
      if (isGraduation(previous, tier)) events++;
      previous = tier;
    }
    expect(events).toBe(1);
  });

  it('the event state holds only aggregate classification fields', () => {
    const item = classifyPool(input());
    expect(graduationState('probation', item)).toEqual({
      previous_tier: 'probation',
      tier: 'seasoned',
      reputation_score: 75,
      warmup_status: 'warm',
      listed: false,
      fcrdns_status: 'pass',
    });
  });
});
