import { describe, expect, it } from 'vitest';
import { POINTS, scoreThreat, threatLevel } from './threat.ts';

describe('threat score', () => {
  it('levels follow CONTRACT §6 boundaries', () => {
    expect([0, 24, 25, 49, 50, 74, 75, 100].map(threatLevel)).toEqual([
      'low',
      'low',
      'medium',
      'medium',
      'high',
      'high',
      'critical',
      'critical',
    ]);
  });

  it('is additive with one line per contribution and clamped to 100', () => {
    expect(scoreThreat([])).toEqual({ score: 0, level: 'low', explanation: [] });
    const t = scoreThreat([
      { points: POINTS.drop, reason: 'a' },
      { points: POINTS.tor, reason: 'b' },
      { points: POINTS.proxy, reason: 'c' },
    ]);
    expect(t).toEqual({ score: 100, level: 'critical', explanation: ['+50 a', '+35 b', '+30 c'] });
  });

  it('matches the contract table', () => {
    expect(POINTS).toEqual({
      listingMalware: 60,
      listingSpam: 45,
      drop: 50,
      uce3: 15,
      uce2: 15,
      uce1: 25,
      tor: 35,
      proxy: 30,
      vpn: 15,
      trap: 20,
      datacenter: 5,
    });
  });
});
