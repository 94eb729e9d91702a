import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createExpiryHeap } from './expiry-heap.ts';

describe('expiry heap', () => {
  it('pops expiries earliest first, whatever order they were pushed in', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 200 }), (times) => {
        const heap = createExpiryHeap();
        times.forEach((at, i) => {
          heap.push({ at, ip: `192.0.2.${i % 256}` });
        });
        const popped: number[] = [];
        for (let top = heap.pop(); top; top = heap.pop()) popped.push(top.at);
        expect(popped).toEqual([...times].sort((a, b) => a - b));
        expect(heap.peek()).toBeUndefined();
      }),
      { seed: 5, numRuns: 200 },
    );
  });

  it('peeks at the earliest without removing it', () => {
    const heap = createExpiryHeap();
    heap.push({ at: 30, ip: '192.0.2.3' });
    heap.push({ at: 10, ip: '192.0.2.1' });
    expect(heap.peek()).toEqual({ at: 10, ip: '192.0.2.1' });
    expect(heap.pop()?.ip).toBe('192.0.2.1');
    expect(heap.peek()?.ip).toBe('192.0.2.3');
  });
});
