import { describe, expect, it } from 'vitest';
import { collectGarbage } from './collect-garbage.ts';

describe('collectGarbage', () => {
  it('collects garbage (a full GC), again and again', () => {
    let garbage: number[][] | null = Array.from({ length: 200 }, () => new Array<number>(50_000).fill(1.5));
    const before = process.memoryUsage().heapUsed;
    garbage = null;
    collectGarbage();
    const after = process.memoryUsage().heapUsed;
    expect(garbage).toBeNull();
    // 200 arrays of 50,000 doubles: about 80 MB gone.
    expect(before - after).toBeGreaterThan(40e6);
    expect(() => collectGarbage()).not.toThrow();
  });
});
