import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { createLocalCounts } from './local-counts.ts';

describe('createLocalCounts', () => {
  const daily = new RateLimiterMemory({ keyPrefix: 'daily', points: 100, duration: 60 });
  const minute = new RateLimiterMemory({ keyPrefix: 'minute', points: 100, duration: 60 });

  it('keeps one counter per limiter and key, remembers what Redis said, and drops it when its time is over', () => {
    const counts = createLocalCounts(() => 0);
    expect(counts.get(daily, 'k', 0)).toBeNull();
    counts.seen(daily, 'k', 7, 1_000);
    expect(counts.get(daily, 'k', 10)).toMatchObject({ known: 7, local: 0, expiresAt: 1_000 });
    expect(counts.get(minute, 'k', 10)).toBeNull();
    const fresh = counts.begin(minute, 'k', 500, 10);
    fresh.local = 2;
    expect(counts.get(minute, 'k', 20)?.local).toBe(2);
    expect(counts.pending()).toBe(2);
    expect(counts.get(minute, 'k', 500)).toBeNull();
    expect(counts.pending()).toBe(0);
  });

  it('adds back what was allowed here through the limiter, and drops counts whose time is over', async () => {
    const counts = createLocalCounts(() => 0);
    counts.begin(daily, 'a', 60_000, 0).local = 3;
    counts.begin(daily, 'b', 5, 0).local = 4;
    expect(await counts.addBack(10)).toBe(true);
    expect((await daily.get('a'))?.consumedPoints).toBe(3);
    expect(await daily.get('b')).toBeNull();
    expect(counts.get(daily, 'a', 10)).toMatchObject({ known: 3, local: 0 });
    expect(counts.pending()).toBe(0);
    expect(await counts.addBack(10)).toBe(false);
  });
});
