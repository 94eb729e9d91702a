/**
 * The guard's IPv4 ranges against ipaddr.js's own range(): reach.ts reads ipaddr.js's table of
 * special-purpose ranges once into 32-bit bounds, and must name every address as range() does
 * (the first range that holds it, else unicast): at both edges of every range, one address
 * outside each edge, and 200,000 random addresses.
 */
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { type ParsedIp, parseIp } from '../core/ip.ts';
import { seededRandom } from '../core/random.ts';
import { refusedReach, refusedReachOf } from './reach.ts';

const dotted = (v: number) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');

/** What the guard says of an IPv4 address, from ipaddr.js's range() alone. */
function byIpaddr(address: string): string | null {
  if (address === '168.63.129.16') return `${address} is azureWireServer address space`;
  const range = ipaddr.IPv4.parse(address).range();
  return range === 'unicast' ? null : `${address} is ${range} address space`;
}

/** Every range's first and last address and their outside neighbours, from ipaddr.js's table. */
function edges(): string[] {
  const table = (ipaddr.IPv4.prototype as unknown as { SpecialRanges: Record<string, unknown> })
    .SpecialRanges;
  const out: number[] = [];
  for (const entry of Object.values(table) as ([ipaddr.IPv4, number] | [ipaddr.IPv4, number][])[]) {
    const list = Array.isArray(entry[0])
      ? (entry as [ipaddr.IPv4, number][])
      : [entry as [ipaddr.IPv4, number]];
    for (const [net, bits] of list) {
      const size = 2 ** (32 - bits);
      const v = net.octets.reduce((a, b) => a * 256 + b, 0);
      const first = v - (v % size);
      out.push(first, first + size - 1, first - 1, first + size);
    }
  }
  return out.filter((v) => v >= 0 && v <= 0xffffffff).map(dotted);
}

describe('refusedReach: IPv4 ranges', () => {
  it('names every range edge, and the addresses just outside, as ipaddr.js range() does', () => {
    const list = edges();
    expect(list.length).toBeGreaterThan(40);
    for (const a of [...list, '168.63.129.16', '168.63.129.15'])
      expect([a, refusedReach(a)]).toEqual([a, byIpaddr(a)]);
  });

  it('names 200,000 random addresses as ipaddr.js range() does', () => {
    const rand = seededRandom(20261207);
    const wrong: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const a = dotted(Math.floor(rand() * 2 ** 32));
      const got = refusedReachOf(parseIp(a) as ParsedIp);
      if (got !== byIpaddr(a)) wrong.push(`${a}: ${got} / ${byIpaddr(a)}`);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});
