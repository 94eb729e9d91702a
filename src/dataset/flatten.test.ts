import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flattenNarrowest, type RankedRange } from './flatten.ts';

function bruteForce(ranges: RankedRange[], x: bigint): number {
  let best = -1;
  ranges.forEach((r, i) => {
    if (r.start > x || r.end < x) return;
    if (best === -1) best = i;
    else {
      const b = ranges[best] as RankedRange;
      const sr = r.end - r.start;
      const sb = b.end - b.start;
      if (sr < sb || (sr === sb && r.rank < b.rank)) best = i;
    }
  });
  return best;
}

describe('flattenNarrowest', () => {
  it('the narrower range wins inside a wider one (214.95.0.0-215.0.255.255 vs 215.0.0.0/24)', () => {
    const wide = { start: 0xd65f0000n, end: 0xd700ffffn, rank: 0 };
    const narrow = { start: 0xd7000000n, end: 0xd70000ffn, rank: 0 };
    const p = flattenNarrowest([wide, narrow]);
    expect(p.winners).toEqual([0, 1, 0]);
    expect(p.starts).toEqual([0xd65f0000n, 0xd7000000n, 0xd7000100n]);
    expect(p.ends).toEqual([0xd6ffffffn, 0xd70000ffn, 0xd700ffffn]);
  });

  it('equal ranges: lower rank wins, then input order', () => {
    expect(
      flattenNarrowest([
        { start: 1n, end: 5n, rank: 2 },
        { start: 1n, end: 5n, rank: 1 },
      ]).winners,
    ).toEqual([1]);
    expect(
      flattenNarrowest([
        { start: 1n, end: 5n, rank: 1 },
        { start: 1n, end: 5n, rank: 1 },
      ]).winners,
    ).toEqual([0]);
  });

  it('agrees with brute force on random overlapping ranges', () => {
    const range = fc
      .tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 2 }))
      .map(([s, l, rank]) => ({ start: BigInt(s), end: BigInt(s + l), rank }));
    fc.assert(
      fc.property(fc.array(range, { maxLength: 12 }), (ranges) => {
        const p = flattenNarrowest(ranges);
        for (let x = 0n; x <= 82n; x++) {
          const i = p.starts.findIndex((s, k) => s <= x && (p.ends[k] as bigint) >= x);
          expect(i === -1 ? -1 : p.winners[i]).toBe(bruteForce(ranges, x));
        }
        for (let k = 1; k < p.starts.length; k++)
          expect(p.starts[k] as bigint).toBeGreaterThan(p.ends[k - 1] as bigint);
      }),
      { numRuns: 300, seed: 42 },
    );
  });
});
