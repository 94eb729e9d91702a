import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bogonV4, bogonV4List } from './bogon.ts';

describe('bogonV4', () => {
  it('the /16 table answers as the list walk, on random addresses and around every /16 edge', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (ip) => bogonV4(ip) === bogonV4List(ip)),
      { numRuns: 5000 },
    );
    const differ: number[] = [];
    for (let s = 0; s < 65536; s++) {
      for (const low of [0, 1, 0x2ff, 0x6432, 0x7100, 65535]) {
        const ip = s * 65536 + low;
        if (bogonV4(ip) !== bogonV4List(ip)) differ.push(ip);
      }
    }
    expect(differ).toEqual([]);
  });

  it('names the block of known addresses', () => {
    expect(bogonV4(0xc0000201)).toBe('192.0.2.0/24');
    expect(bogonV4(0xc0a80101)).toBe('192.168.0.0/16');
    expect(bogonV4(0xe0000001)).toBe('224.0.0.0/4');
    expect(bogonV4(0xc0000301)).toBeNull();
    expect(bogonV4(0x08080808)).toBeNull();
  });
});
