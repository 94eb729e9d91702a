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

  it('leaves no trace a reader of the key can see: keys, JSON, deep equality', () => {
    const length = memoByObject((k: { s: string }) => k.s.length);
    const key = { s: 'abc' };
    expect(length(key)).toBe(3);
    expect(Object.keys(key)).toEqual(['s']);
    expect(JSON.stringify(key)).toBe('{"s":"abc"}');
    expect(key).toStrictEqual({ s: 'abc' });
    expect({ ...key }).toStrictEqual({ s: 'abc' });
  });

  it('two memos over the same key keep their own values', () => {
    const a = memoByObject((k: { n: number }) => k.n + 1);
    const b = memoByObject((k: { n: number }) => k.n + 2);
    const key = { n: 1 };
    expect([a(key), b(key), a(key), b(key)]).toEqual([2, 3, 2, 3]);
  });

  it('a frozen key gets its value made each time', () => {
    let calls = 0;
    const f = memoByObject((k: { n: number }) => {
      calls++;
      return k.n;
    });
    const key = Object.freeze({ n: 5 });
    expect([f(key), f(key)]).toEqual([5, 5]);
    expect(calls).toBe(2);
  });
});
