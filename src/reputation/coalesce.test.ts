import { describe, expect, it } from 'vitest';
import { createCoalescer } from './coalesce.ts';

describe('createCoalescer', () => {
  it('joins calls made in one turn into one batch, answering each at its position', async () => {
    const batches: (readonly string[])[] = [];
    const one = createCoalescer<string, string>(async (keys) => {
      batches.push(keys);
      return keys.map((k) => k.toUpperCase());
    }, 100);
    const answers = await Promise.all(['a', 'b', 'a', 'c'].map(one));
    expect(answers).toEqual(['A', 'B', 'A', 'C']);
    expect(batches).toEqual([['a', 'b', 'a', 'c']]);
    // A later turn is a new batch.
    expect(await one('d')).toBe('D');
    expect(batches).toHaveLength(2);
  });

  it('splits at max', async () => {
    const sizes: number[] = [];
    const one = createCoalescer<number, number>(async (keys) => {
      sizes.push(keys.length);
      return keys.map((k) => k * 2);
    }, 3);
    const keys = Array.from({ length: 7 }, (_, i) => i);
    expect(await Promise.all(keys.map(one))).toEqual(keys.map((k) => k * 2));
    expect(sizes).toEqual([3, 3, 1]);
  });

  it("a batch's failure, thrown or rejected, reaches every caller in it and no other", async () => {
    let calls = 0;
    const one = createCoalescer<string, string>((keys) => {
      calls++;
      if (calls === 1) throw new Error('store closed');
      if (calls === 2) return Promise.reject(new Error('lost server'));
      return Promise.resolve(keys);
    }, 100);
    const first = await Promise.allSettled([one('a'), one('b')]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(one('c')).rejects.toThrow('lost server');
    expect(await one('d')).toBe('d');
  });
});
