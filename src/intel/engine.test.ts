import { describe, expect, it } from 'vitest';
import type { FamilyTable } from '../dataset/index.ts';
import { cidrAround, findV4, findV6 } from './engine.ts';

function table4(starts: number[]): FamilyTable {
  const buckets = new Uint32Array(65537);
  let i = 0;
  for (let k = 0; k <= 65536; k++) {
    while (i < starts.length && (starts[i] as number) < k * 65536) i++;
    buckets[k] = i;
  }
  const n = starts.length;
  return {
    family: 4,
    size: n,
    starts: Uint32Array.from(starts),
    recs: new Uint32Array(n),
    nets: new Int32Array(n),
    netStarts: new Uint32Array(0),
    netEnds: new Uint32Array(0),
    netAsns: new Uint32Array(0),
    buckets,
  };
}

describe('engine search', () => {
  it('finds the last interval starting at or below the address, across bucket edges', () => {
    const t = table4([0x01000000, 0x0100ff00, 0x01010000, 0x01010080, 0xfffffff0]);
    expect(findV4(t, 0x00ffffff)).toBe(-1);
    expect(findV4(t, 0x01000000)).toBe(0);
    expect(findV4(t, 0x0100ffff)).toBe(1);
    expect(findV4(t, 0x01010000)).toBe(2);
    expect(findV4(t, 0x0101007f)).toBe(2);
    expect(findV4(t, 0x01020000)).toBe(3);
    expect(findV4(t, 0x7f000000)).toBe(3);
    expect(findV4(t, 0xffffffff)).toBe(4);
    expect(findV4(table4([]), 5)).toBe(-1);
  });

  it('IPv6 four-word compare', () => {
    const starts = [
      [0x20010000, 0, 0, 0],
      [0x20010000, 0, 0, 5],
      [0x2a001450, 0, 0, 0],
    ];
    const buckets = new Uint32Array(65537);
    let i = 0;
    for (let k = 0; k <= 65536; k++) {
      while (i < starts.length && ((starts[i] as number[])[0] as number) >>> 16 < k) i++;
      buckets[k] = i;
    }
    const t: FamilyTable = {
      family: 6,
      size: 3,
      starts: Uint32Array.from(starts.flat()),
      recs: new Uint32Array(3),
      nets: new Int32Array(3),
      netStarts: new Uint32Array(0),
      netEnds: new Uint32Array(0),
      netAsns: new Uint32Array(0),
      buckets,
    };
    expect(findV6(t, 0x20010000, 0, 0, 4)).toBe(0);
    expect(findV6(t, 0x20010000, 0, 0, 5)).toBe(1);
    expect(findV6(t, 0x2a001450, 0, 1, 0)).toBe(2);
    expect(findV6(t, 0x1fffffff, 0, 0, 0)).toBe(-1);
  });

  it('cidrAround picks the largest aligned block inside the range', () => {
    expect(cidrAround(4, 0xd7000001n, 0xd7000000n, 0xd70103ffn)).toEqual({
      network: 0xd7000000n,
      length: 16,
    });
    expect(cidrAround(4, 0xd70103ffn, 0xd7000000n, 0xd70103ffn)).toEqual({
      network: 0xd7010000n,
      length: 22,
    });
    expect(cidrAround(4, 5n, 5n, 5n)).toEqual({ network: 5n, length: 32 });
    expect(cidrAround(4, 7n, 0n, 0xffffffffn)).toEqual({ network: 0n, length: 0 });
  });
});
