/**
 * The guard's IPv4 ranges against ipaddr.js's own range(): reach.ts names them through
 * core/ip-numbers.ts, which reads ipaddr.js's table of special-purpose ranges once into 32-bit
 * bounds, and must name every address as range() does
 * (the first range that holds it, else unicast): at both edges of every range, one address
 * outside each edge, and 200,000 random addresses.
 */
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { ipv4RangeEdges } from '../../test/helpers/ipv4-range-edges.ts';
import { intToIpv4, type ParsedIp, parseIp } from '../core/ip.ts';
import { seededRandom } from '../core/random.ts';
import { refusedReach, refusedReachOf } from './reach.ts';

/** What the guard says of an IPv4 address, from ipaddr.js's range() alone. */
function byIpaddr(address: string): string | null {
  if (address === '168.63.129.16') return `${address} is azureWireServer address space`;
  const range = ipaddr.IPv4.parse(address).range();
  return range === 'unicast' ? null : `${address} is ${range} address space`;
}

describe('refusedReach: IPv4 ranges', () => {
  it('names every range edge, and the addresses just outside, as ipaddr.js range() does', () => {
    const list = ipv4RangeEdges();
    expect(list.length).toBeGreaterThan(40);
    for (const a of [...list, '168.63.129.16', '168.63.129.15'])
      expect([a, refusedReach(a)]).toEqual([a, byIpaddr(a)]);
  });

  it('names 200,000 random addresses as ipaddr.js range() does', () => {
    const rand = seededRandom(20261207);
    const wrong: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const a = intToIpv4(Math.floor(rand() * 2 ** 32));
      const got = refusedReachOf(parseIp(a) as ParsedIp);
      if (got !== byIpaddr(a)) wrong.push(`${a}: ${got} / ${byIpaddr(a)}`);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});
