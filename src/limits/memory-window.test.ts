import { describe, expect, it } from 'vitest';
import { createMemoryWindow } from './memory-window.ts';

describe('createMemoryWindow', () => {
  it('counts per subject in a fixed window opened by the first request', () => {
    let t = 1_000;
    const w = createMemoryWindow(60_000, () => t);
    expect(w.consume('a')).toEqual({ consumed: 1, msBeforeNext: 60_000 });
    t += 10_000;
    expect(w.consume('a')).toEqual({ consumed: 2, msBeforeNext: 50_000 });
    expect(w.consume('b')).toEqual({ consumed: 1, msBeforeNext: 60_000 });
    t += 49_999;
    expect(w.consume('a')).toEqual({ consumed: 3, msBeforeNext: 1 });
    t += 1; // a's window closes exactly at its opening + 60 s
    expect(w.consume('a')).toEqual({ consumed: 1, msBeforeNext: 60_000 });
    expect(w.consume('b')).toEqual({ consumed: 2, msBeforeNext: 10_000 });
  });

  it('keeps a window open across a rotation and holds at most two periods of subjects', () => {
    let t = 0;
    const w = createMemoryWindow(100, () => t);
    for (let i = 0; i < 50; i++) {
      w.consume(`s${i}`);
      t += 2; // 50 subjects over 100 ms
    }
    expect(w.consume('s49')).toEqual({ consumed: 2, msBeforeNext: 98 }); // opened at 98
    t = 101; // rotation: s0-s49 move to the older period, s49's window still open
    expect(w.consume('s49')).toEqual({ consumed: 3, msBeforeNext: 97 });
    expect(w.consume('new')).toEqual({ consumed: 1, msBeforeNext: 100 });
    expect(w.size()).toBe(51);
    t = 201; // the next rotation drops s0-s49, all closed
    expect(w.consume('s0')).toEqual({ consumed: 1, msBeforeNext: 100 });
    expect(w.size()).toBe(2);
    t = 10_000; // idle longer than two periods: nothing held is open
    expect(w.consume('new')).toEqual({ consumed: 1, msBeforeNext: 100 });
    expect(w.size()).toBe(1);
  });

  it('agrees with a naive per-subject window on random traffic', () => {
    let t = 0;
    const w = createMemoryWindow(1_000, () => t);
    const naive = new Map<string, { consumed: number; expiresAt: number }>();
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    for (let i = 0; i < 20_000; i++) {
      t += rand(40);
      const subject = `k${rand(30)}`;
      const held = naive.get(subject);
      let expected: { consumed: number; msBeforeNext: number };
      if (held && held.expiresAt > t) {
        held.consumed++;
        expected = { consumed: held.consumed, msBeforeNext: held.expiresAt - t };
      } else {
        naive.set(subject, { consumed: 1, expiresAt: t + 1_000 });
        expected = { consumed: 1, msBeforeNext: 1_000 };
      }
      expect(w.consume(subject)).toEqual(expected);
    }
  });
});
