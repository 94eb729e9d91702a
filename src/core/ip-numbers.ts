/**
 * Addresses as numbers: IPv4 as an unsigned 32-bit integer, IPv6 as a 128-bit bigint, and back
 * to text (re-exported by ip.ts, where the rest of the IP rules live).
 */
import ipaddr from 'ipaddr.js';

/** IPv4 as an unsigned 32-bit integer. */
export function ipv4ToInt(bytes: readonly number[]): number {
  return (
    (((bytes[0] as number) << 24) |
      ((bytes[1] as number) << 16) |
      ((bytes[2] as number) << 8) |
      (bytes[3] as number)) >>>
    0
  );
}

export function intToIpv4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** An ipaddr.js table of special-purpose ranges: a name, then one [address, bits] or a list of them. */
type RangeTable = Record<string, [ipaddr.IPv4, number] | [ipaddr.IPv4, number][]>;

/**
 * ipaddr.js's own IPv4 table (IPv4.prototype.SpecialRanges, which its range() walks), in its
 * order, as 32-bit bounds: a parsed ipaddr object and its range() cost about 0.6 µs, asked on a
 * reputation answer, a scan's first lookup and every webhook target. Same names, same first match
 * (ip.test.ts compares them on every range's edges and 200,000 random addresses).
 */
const V4_RANGES: readonly { name: string; first: number; last: number }[] = Object.entries(
  (ipaddr.IPv4.prototype as unknown as { SpecialRanges: RangeTable }).SpecialRanges,
).flatMap(([name, entry]) =>
  (Array.isArray(entry[0]) ? (entry as [ipaddr.IPv4, number][]) : [entry as [ipaddr.IPv4, number]]).map(
    ([net, bits]) => {
      const size = 2 ** (32 - bits);
      const first = ipv4ToInt(net.octets) - (ipv4ToInt(net.octets) % size);
      return { name, first, last: first + size - 1 };
    },
  ),
);

/** The ipaddr.js range name (`unicast`, `private`, `loopback`, …) of an IPv4 address as a 32-bit value. */
export function ipv4RangeName(value: number): string {
  for (const r of V4_RANGES) if (value >= r.first && value <= r.last) return r.name;
  return 'unicast';
}

/** IPv6 as a 128-bit bigint. */
export function ipv6ToBigInt(bytes: readonly number[]): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

export function bigIntToIpv6(n: bigint): string {
  const bytes: number[] = new Array(16);
  for (let i = 15; i >= 0; i--) {
    bytes[i] = Number(n & 255n);
    n >>= 8n;
  }
  return ipaddr.fromByteArray(bytes).toString();
}
