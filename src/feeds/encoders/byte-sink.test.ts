import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteSink } from './byte-sink.ts';

describe('ByteSink', () => {
  it('writes an integer as String(n) does, past the short paths for prefix lengths too', () => {
    const sink = new ByteSink(4);
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 0, max: 1200 }), fc.integer({ min: 0, max: 2 ** 32 - 1 })),
        (n) => {
          sink.int(n);
          sink.byte(10);
          return sink.takeText() === `${n}\n`;
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('copies a range of bytes, growing its buffer', () => {
    const sink = new ByteSink(2);
    const src = Buffer.from('xx192.0.2.0/24yy');
    sink.range(src, 2, 14);
    expect(sink.takeText()).toBe('192.0.2.0/24');
  });
});
