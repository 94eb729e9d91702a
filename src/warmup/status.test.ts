import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../core/clock.ts';
import { daysSending, firstSendingAt, warmupStatus } from './status.ts';

const NOW = Date.parse('2026-03-15T12:00:00Z');

describe('daysSending', () => {
  it.each([
    [null, 0],
    [NOW, 1],
    [Date.parse('2026-03-15T00:00:00Z'), 1],
    [Date.parse('2026-03-14T23:59:59.999Z'), 2],
    [NOW - 29 * DAY_MS, 30],
    [NOW - 30 * DAY_MS, 31],
    [NOW + 5 * DAY_MS, 1],
  ])('first sending %s -> day %i', (first, day) => {
    expect(daysSending(first, NOW)).toBe(day);
  });
});

describe('warmupStatus (spec §3.1)', () => {
  it.each([
    [0, 60, false, 'cold'],
    [0, 29, false, 'damaged'],
    [0, 90, true, 'damaged'],
    [1, 30, false, 'warming'],
    [30, 100, false, 'warming'],
    [31, 60, false, 'warm'],
    [31, 59, false, 'warming'],
    [89, 100, false, 'warm'],
    [90, 60, false, 'established'],
    [90, 59, false, 'warming'],
    [500, 30, false, 'warming'],
    [500, 29, false, 'damaged'],
    [500, 100, true, 'damaged'],
  ] as const)('day %i, score %i, listed %s -> %s', (days, score, listed, status) => {
    expect(warmupStatus({ daysSending: days, score, listed })).toBe(status);
  });
});

describe('firstSendingAt (CONTRACT §7)', () => {
  it('is the earliest production observation with volume_24h > 0', () => {
    expect(
      firstSendingAt([
        { observedAt: 500, volume24h: 10, synthetic: false },
        { observedAt: 100, volume24h: 0, synthetic: false },
        { observedAt: 200, volume24h: null, synthetic: false },
        { observedAt: 300, volume24h: 99, synthetic: true },
        { observedAt: 400, volume24h: 1, synthetic: false },
      ]),
    ).toBe(400);
  });

  it('is null without sending activity', () => {
    expect(firstSendingAt([])).toBeNull();
    expect(firstSendingAt([{ observedAt: 1, volume24h: 0, synthetic: false }])).toBeNull();
  });
});
