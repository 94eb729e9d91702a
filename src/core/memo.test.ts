import { describe, expect, it } from 'vitest';
import { memoByObject } from './memo.ts';

describe('memoByObject', () => {
  it('makes a value once per key object, and again for an equal but new object', () => {
    let calls = 0;
    const double = memoByObject((k: { n: number }) => {
      calls++;
      return { n: k.n * 2 };
    });
    const key = { n: 2 };
    const first = double(key);
    expect(double(key)).toBe(first);
    expect(first).toEqual({ n: 4 });
    expect(calls).toBe(1);
    expect(double({ n: 2 })).not.toBe(first);
    expect(calls).toBe(2);
  });
});
