import { bigIntToIpv6, intToIpv4, parseIp } from '../core/ip.ts';

/**
 * RFC 5782 §2.1 and §2.4 query names: an IPv4 address is its four octets reversed under the zone,
 * an IPv6 address its 32 nibbles reversed. Labels are compared case-insensitively (RFC 4343).
 */
export type QueryTarget =
  | { kind: 'outside' }
  | { kind: 'apex' }
  /** Under the zone but not an address name (too few or many labels, bad label). */
  | { kind: 'none' }
  | { kind: 'ipv4'; int: number }
  /** 32 lower-case hex digits, most significant first. */
  | { kind: 'ipv6'; hex: string };

const MAX_NAME = 253;

/** Lower-cases a zone and strips the trailing dot. */
export function canonicalZone(zone: string): string {
  const z = zone.trim().toLowerCase().replace(/\.$/, '');
  if (z.length === 0 || z.length > MAX_NAME || z.split('.').some((l) => l.length === 0 || l.length > 63)) {
    throw new Error(`invalid DNSBL zone: ${JSON.stringify(zone)}`);
  }
  return z;
}

/** Decimal label 0-255 without leading zeros, else -1. */
function octet(label: string): number {
  const n = label.length;
  if (n === 0 || n > 3 || (n > 1 && label.charCodeAt(0) === 48)) return -1;
  let v = 0;
  for (let i = 0; i < n; i++) {
    const c = label.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v > 255 ? -1 : v;
}

/** Where a query name points, relative to a canonical zone (text form, dots between labels). */
export function classifyQueryName(name: string, zone: string): QueryTarget {
  const lower = name.toLowerCase().replace(/\.$/, '');
  return classifyLabels(lower.length === 0 ? [] : lower.split('.'), zone.split('.'));
}

/**
 * Where a query name points, given its labels as read from the wire (so a label holding a dot
 * stays one label). `labels` and `zoneLabels` are lower case.
 */
export function classifyLabels(labels: readonly string[], zoneLabels: readonly string[]): QueryTarget {
  const host = labels.length - zoneLabels.length;
  if (host < 0) return { kind: 'outside' };
  for (let i = 0; i < zoneLabels.length; i++) {
    if (labels[host + i] !== zoneLabels[i]) return { kind: 'outside' };
  }
  if (host === 0) return { kind: 'apex' };
  if (host === 4) return ipv4Labels(labels);
  if (host === 32) return ipv6Labels(labels);
  return { kind: 'none' };
}

/** The first four labels as a reversed dotted quad (RFC 5782 §2.1). */
function ipv4Labels(labels: readonly string[]): QueryTarget {
  let int = 0;
  for (let i = 3; i >= 0; i--) {
    const o = octet(labels[i] as string);
    if (o < 0) return { kind: 'none' };
    int = int * 256 + o;
  }
  return { kind: 'ipv4', int };
}

/** The first 32 labels as reversed nibbles (RFC 5782 §2.4). */
function ipv6Labels(labels: readonly string[]): QueryTarget {
  let hex = '';
  for (let i = 31; i >= 0; i--) {
    const l = labels[i] as string;
    if (!/^[0-9a-f]$/.test(l)) return { kind: 'none' };
    hex += l;
  }
  return ipv6Target(hex);
}

/** An IPv4-mapped IPv6 name means the IPv4 address, as core/ip.ts normalizes it. */
export function ipv6Target(hex: string): QueryTarget {
  const int = mappedIpv4(hex);
  return int < 0 ? { kind: 'ipv6', hex } : { kind: 'ipv4', int };
}

/** The IPv4 address (uint32) of an IPv4-mapped IPv6 address (32 hex digits, `::ffff:0:0/96`), else -1. */
export function mappedIpv4(hex: string): number {
  return hex.startsWith('00000000000000000000ffff') ? Number.parseInt(hex.slice(24), 16) : -1;
}

/** Normalized text of a target address. */
export function targetIp(target: { kind: 'ipv4'; int: number } | { kind: 'ipv6'; hex: string }): string {
  return target.kind === 'ipv4' ? intToIpv4(target.int) : bigIntToIpv6(BigInt(`0x${target.hex}`));
}

/** The query name (without trailing dot) for an address under a zone; null for a non-address. */
export function ipToQueryName(ip: string, zone: string): string | null {
  const parsed = parseIp(ip);
  if (!parsed) return null;
  if (parsed.family === 4) return `${parsed.bytes.slice().reverse().join('.')}.${zone}`;
  return `${nibbles(parsed.bytes).reverse().join('.')}.${zone}`;
}

/** 32 hex nibbles of 16 bytes, most significant first. */
export function nibbles(bytes: readonly number[]): string[] {
  const out: string[] = [];
  for (const b of bytes) out.push((b >> 4).toString(16), (b & 15).toString(16));
  return out;
}
