import { describe, expect, it } from 'vitest';
import { createManualClock, DAY_MS } from '../core/clock.ts';
import { type Computation, dailyHistory } from './history.ts';

const NOW = Date.parse('2026-03-15T12:00:00Z');

describe('dailyHistory', () => {
  it('keeps the last computation of each UTC day, oldest first', () => {
    const points = dailyHistory(
      [
        { score: 70, computedAt: Date.parse('2026-03-14T23:59:59.999Z') },
        { score: 40, computedAt: Date.parse('2026-03-14T00:00:00Z') },
        { score: 55, computedAt: Date.parse('2026-03-15T00:00:00Z') },
        { score: 85, computedAt: Date.parse('2026-03-15T11:00:00Z') },
        { score: 20, computedAt: Date.parse('2026-03-15T10:00:00Z') },
      ],
      NOW,
    );
    expect(points).toEqual([
      { score: 70, level: 'neutral', computed_at: '2026-03-14T23:59:59.999Z' },
      { score: 85, level: 'good', computed_at: '2026-03-15T11:00:00.000Z' },
    ]);
  });

  it('covers today and the 29 days before; older and future computations are dropped', () => {
    const points = dailyHistory(
      [
        { score: 1, computedAt: Date.parse('2026-02-13T23:59:59Z') },
        { score: 2, computedAt: Date.parse('2026-02-14T00:00:00Z') },
        { score: 3, computedAt: NOW + 1 },
      ],
      NOW,
    );
    expect(points.map((p) => p.score)).toEqual([2]);
  });

  it('on equal times the later entry wins', () => {
    const points = dailyHistory(
      [
        { score: 10, computedAt: NOW },
        { score: 90, computedAt: NOW },
      ],
      NOW,
    );
    expect(points).toEqual([{ score: 90, level: 'good', computed_at: '2026-03-15T12:00:00.000Z' }]);
  });

  it('has one point per day across 30 days as the clock moves, several computations a day', () => {
    const clock = createManualClock('2026-01-01T00:30:00Z');
    const stored: Computation[] = [];
    for (let day = 0; day < 45; day++) {
      for (let k = 0; k < 3; k++) {
        stored.push({ score: (day * 3 + k) % 101, computedAt: clock() });
        clock.advance(7 * 3_600_000);
      }
      clock.advance(DAY_MS - 21 * 3_600_000);
    }
    // Ask during the last day, after its three computations.
    const now = clock() - 3 * 3_600_000;
    const points = dailyHistory(stored, now);
    expect(points).toHaveLength(30);
    const days = points.map((p) => p.computed_at.slice(0, 10));
    expect(new Set(days).size).toBe(30);
    expect(days).toEqual([...days].sort());
    expect(days[0]).toBe('2026-01-16');
    expect(days.at(-1)).toBe('2026-02-14');
    // Day d (0 = 2026-01-01) last computed at 14:30 with score (3d + 2) % 101.
    points.forEach((p, i) => {
      const d = 15 + i;
      expect(p.computed_at.slice(11)).toBe('14:30:00.000Z');
      expect(p.score).toBe((3 * d + 2) % 101);
    });
  });

  it('returns nothing for no computations', () => {
    expect(dailyHistory([], NOW)).toEqual([]);
  });
});
