import { isIPv4 } from 'node:net';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { formatAddr, parseV4 } from './addr.ts';

/** The dotted-quad rule as node:net reads it, with leading zeros refused as parseV4 does. */
function referenceV4(text: string): number {
  if (!isIPv4(text) || text.split('.').some((p) => p.length > 1 && p.startsWith('0'))) return -1;
  return text.split('.').reduce((v, p) => v * 256 + Number(p), 0);
}

describe('parseV4', () => {
  it.each([
    ['0.0.0.0', 0],
    ['1.2.3.4', 0x01020304],
    ['255.255.255.255', 4294967295],
    ['10.0.0.1', 0x0a000001],
  ])('%s -> %d', (text, value) => {
    expect(parseV4(text)).toBe(value);
  });

  it.each([
    '',
    '1.2.3',
    '1.2.3.4.5',
    '1.2.3.4.',
    '.1.2.3',
    '1..2.3',
    '256.1.1.1',
    '1.2.3.256',
    '010.1.1.1',
    '1.2.3.00',
    '1.2.3.0004',
    '1.2.3.-4',
    ' 1.2.3.4',
    '1.2.3.4 ',
    '1.2.3.a',
  ])('refuses %j', (text) => {
    expect(parseV4(text)).toBe(-1);
  });

  it('agrees with node:net on dotted strings of digits', () => {
    const part = fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.stringMatching(/^[0-9]{0,4}$/));
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 6 }), (parts) => {
        const text = parts.join('.');
        expect(parseV4(text)).toBe(referenceV4(text));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('formatAddr', () => {
  it('writes IPv6 in RFC 5952 form, as ipaddr.js does', () => {
    const group = fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: 0xffff }));
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (groups) => {
        const value = groups.reduce((v, g) => (v << 16n) | BigInt(g), 0n);
        expect(formatAddr(6, value)).toBe(ipaddr.fromByteArray(toBytes(groups)).toString());
      }),
      { numRuns: 5000 },
    );
  });

  it('writes IPv4 as a dotted quad', () => {
    expect(formatAddr(4, 0x01020304n)).toBe('1.2.3.4');
    expect(formatAddr(4, 0xffffffffn)).toBe('255.255.255.255');
  });
});

function toBytes(groups: readonly number[]): number[] {
  return groups.flatMap((g) => [g >> 8, g & 255]);
}
