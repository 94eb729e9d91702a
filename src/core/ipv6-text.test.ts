import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { formatV6, rfc5952Text } from './ipv6-text.ts';

/** Every layout of zero and non-zero groups (one bit a group). */
const LAYOUTS = Array.from({ length: 256 }, (_, mask) =>
  Array.from({ length: 8 }, (_, k) => ((mask >> k) & 1 ? 0xa : 0)),
);

function reference(g: readonly number[]): string {
  return ipaddr.fromByteArray(g.flatMap((v) => [v >> 8, v & 255])).toString();
}

describe('formatV6', () => {
  it('compresses the longest run of two or more zero groups, the first on a tie (RFC 5952 §4.2)', () => {
    for (const g of LAYOUTS) expect(formatV6(g), g.join(':')).toBe(reference(g));
    expect(formatV6([0x2001, 0xdb8, 0, 0, 1, 0, 0, 1])).toBe('2001:db8::1:0:0:1');
    expect(formatV6([0x2001, 0xdb8, 0, 1, 1, 1, 1, 1])).toBe('2001:db8:0:1:1:1:1:1');
  });

  it('writes hex in lower case without leading zeros (§4.1, §4.3)', () => {
    expect(formatV6([0xabcd, 0xf, 0xf0, 0xf00, 0, 0, 0, 1])).toBe('abcd:f:f0:f00::1');
  });
});

describe('rfc5952Text', () => {
  it('keeps the text when its `::` stands for the run RFC 5952 compresses', () => {
    const text = '2001:db8::1:0:0:1';
    expect(rfc5952Text(text, [0x2001, 0xdb8, 0, 0, 1, 0, 0, 1], true, 2, 2)).toBe(text);
    const full = '1:2:3:4:5:6:7:8';
    expect(rfc5952Text(full, [1, 2, 3, 4, 5, 6, 7, 8], true, -1, 0)).toBe(full);
  });

  it('writes the text anew when `::` is elsewhere, missing, or the digits are not plain', () => {
    const g = [0x2001, 0xdb8, 0, 0, 1, 0, 0, 1];
    expect(rfc5952Text('2001:db8:0:0:1::1', g, true, 5, 2)).toBe('2001:db8::1:0:0:1');
    expect(rfc5952Text('2001:db8:0:0:1:0:0:1', g, true, -1, 0)).toBe('2001:db8::1:0:0:1');
    expect(rfc5952Text('2001:DB8::1:0:0:1', g, false, 2, 2)).toBe('2001:db8::1:0:0:1');
    // A `::` standing for a single zero group is not RFC 5952 text (§4.2.2).
    expect(rfc5952Text('1::3:4:5:6:7:8', [1, 0, 3, 4, 5, 6, 7, 8], true, 1, 1)).toBe('1:0:3:4:5:6:7:8');
  });
});
