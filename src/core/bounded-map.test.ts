import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map.ts';

describe('BoundedMap', () => {
  it('forgets the oldest entry beyond max, and a key set again keeps its place without evicting', () => {
    const m = new BoundedMap<string, number>(3);
    for (const [k, v] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      m.set(k, v);
    m.set('a', 10);
    expect([...m]).toEqual([
      ['a', 10],
      ['b', 2],
      ['c', 3],
    ]);
    m.set('d', 4);
    expect([...m.keys()]).toEqual(['b', 'c', 'd']);
    expect(m.size).toBe(3);
    m.delete('c');
    m.set('e', 5);
    expect([...m.keys()]).toEqual(['b', 'd', 'e']);
  });
});
