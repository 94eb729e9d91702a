/**
 * Special-purpose address blocks (RFC 6890 registries, IANA): such addresses answer as bogons
 * with their block as the prefix instead of a 404 or an error.
 */
import { formatAddr } from '../dataset/index.ts';

const V4: readonly [number, number, string][] = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space (CGN)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
].map(([net, len, what]) => {
  const n = (net as string).split('.').reduce((a, p) => a * 256 + Number(p), 0);
  return [n, len as number, what as string] as [number, number, string];
});

const V4_FIRST_OCTET = new Uint8Array(256);
const V4_BLOCKS = V4.map(([net, len]) => {
  const end = net + 2 ** (32 - len) - 1;
  for (let o = net >>> 24; o <= end >>> 24; o++) V4_FIRST_OCTET[o] = 1;
  return { net, end, cidr: `${formatAddr(4, BigInt(net))}/${len}` };
});

/**
 * Per /16: 0 when no block touches it, k when block k - 1 (the first in the list that touches
 * it) holds all of it, V4_PARTIAL when the list must be walked (a /24 block such as 192.0.2.0/24).
 */
const V4_PARTIAL = 255;
const V4_BY_16 = new Uint8Array(65536);
V4_BLOCKS.forEach((b, k) => {
  for (let s = b.net >>> 16; s <= b.end >>> 16; s++) {
    if (V4_BY_16[s] !== 0) continue; // an earlier block touched it first
    const whole = b.net <= s * 65536 && b.end >= s * 65536 + 65535;
    V4_BY_16[s] = whole ? k + 1 : V4_PARTIAL;
  }
});

/** The bogon block containing an IPv4 address, as `cidr`, or null for public space. */
export function bogonV4(ip: number): string | null {
  // One byte per /16 answers all but the few /16s that hold a smaller block.
  const k = V4_BY_16[ip >>> 16] as number;
  if (k === 0) return null;
  if (k !== V4_PARTIAL) return (V4_BLOCKS[k - 1] as { cidr: string }).cidr;
  return bogonV4List(ip);
}

/** bogonV4 by walking the list (the reference the /16 table is tested against). */
export function bogonV4List(ip: number): string | null {
  // Most addresses fail the first-octet test and never reach the list.
  if (V4_FIRST_OCTET[ip >>> 24] === 0) return null;
  for (const b of V4_BLOCKS) if (ip >= b.net && ip <= b.end) return b.cidr;
  return null;
}

const V6: readonly [bigint, number][] = (
  [
    ['::', 128],
    ['::1', 128],
    ['100::', 64],
    ['2001:db8::', 32],
    ['3fff::', 20],
    ['fc00::', 7],
    ['fe80::', 10],
    ['fec0::', 10],
    ['ff00::', 8],
  ] as const
).map(([net, len]) => {
  const groups =
    net
      .split('::')[0]
      ?.split(':')
      .filter((g) => g !== '') ?? [];
  let v = 0n;
  for (let i = 0; i < 8; i++) v = (v << 16n) | BigInt(Number.parseInt(groups[i] ?? '0', 16));
  if (net === '::1') v = 1n;
  return [v, len];
});

/** IPv6 bogons: the blocks above, and anything outside global unicast 2000::/3. */
export function bogonV6(w0: number, ip: bigint): string | null {
  for (const [net, len] of V6) {
    const host = BigInt(128 - len);
    if (ip >> host === net >> host) return `${formatAddr(6, net)}/${len}`;
  }
  if (w0 >>> 29 !== 1) {
    const net = (ip >> 125n) << 125n;
    return `${formatAddr(6, net)}/3`;
  }
  return null;
}
