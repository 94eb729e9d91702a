import { describe, expect, it } from 'vitest';
import { createManualClock, DAY_MS, utcDay } from '../core/clock.ts';
import { assessWarmup } from './assess.ts';
import type { WarmupData } from './types.ts';

describe('assessWarmup over a moving clock', () => {
  it.each([75, 45, 35])('next_milestone is the first later day whose volume changes (score %i)', (score) => {
    const first = Date.parse('2026-01-10T18:45:00Z');
    const clock = createManualClock(first);
    const answers: WarmupData[] = [];
    for (let i = 0; i < 75; i++) {
      answers.push(
        assessWarmup(
          { ip: '198.51.100.7', firstSendingAt: first, reputationScore: score, listed: false },
          clock(),
        ),
      );
      clock.advance(DAY_MS);
    }
    answers.forEach((a, i) => {
      expect(a.days_sending).toBe(i + 1);
      const later = answers
        .slice(i + 1)
        .find((b) => b.recommended_daily_volume !== a.recommended_daily_volume);
      if (a.days_sending >= 61) {
        expect(a.next_milestone).toBeNull();
        expect(a.next_milestone_volume).toBeNull();
      } else {
        expect(later, `day ${a.days_sending}`).toBeDefined();
        expect(a.next_milestone).toBe(utcDay(first + ((later?.days_sending ?? 0) - 1) * DAY_MS));
        expect(a.next_milestone_volume).toBe(later?.recommended_daily_volume);
      }
      if (i > 0)
        expect(a.recommended_daily_volume).toBeGreaterThanOrEqual(
          answers[i - 1]?.recommended_daily_volume ?? 0,
        );
    });
  });

  it('a cold address gets day-1 guidance with the first step a week from today', () => {
    const now = Date.parse('2026-12-28T08:00:00Z');
    expect(
      assessWarmup({ ip: '2001:db8::1', firstSendingAt: null, reputationScore: 60, listed: false }, now),
    ).toEqual({
      ip: '2001:db8::1',
      status: 'cold',
      days_sending: 0,
      reputation_score: 60,
      recommended_daily_volume: 50,
      auto_pause_recommended: false,
      auto_pause_reason: null,
      next_milestone: '2027-01-04',
      next_milestone_volume: 200,
    });
  });

  it('a listed address is told to stop and why', () => {
    const now = Date.parse('2026-03-15T12:00:00Z');
    const out = assessWarmup(
      { ip: '198.51.100.7', firstSendingAt: now - 40 * DAY_MS, reputationScore: 10, listed: true },
      now,
    );
    expect(out).toMatchObject({
      status: 'damaged',
      recommended_daily_volume: 0,
      auto_pause_recommended: true,
      auto_pause_reason: 'the IP is actively blocklisted; reputation score 10 is below 40',
      next_milestone_volume: 0,
    });
  });
});
