import ipaddr from 'ipaddr.js';

/**
 * IP address normalization, one set of rules for every route and importer:
 * - surrounding whitespace is trimmed;
 * - IPv4 must be four decimal parts 0-255; a part with a leading zero ("010") is rejected,
 *   because resolvers disagree whether it is octal;
 * - IPv6 is written in RFC 5952 form (lower case, longest zero run compressed);
 * - an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 address;
 * - zone ids (fe80::1%eth0), brackets, ports, prefixes and anything over 45 characters are rejected.
 */
export type IpFamily = 4 | 6;

export interface ParsedIp {
  family: IpFamily;
  /** Normalized text form. */
  address: string;
  /** 4 bytes for IPv4, 16 for IPv6. */
  bytes: number[];
}

const MAX_IP_TEXT = 45;
const IPV4_STRICT = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6_CHARS = /^[0-9a-fA-F:.]+$/;

export function parseIp(input: unknown): ParsedIp | null {
  if (typeof input !== 'string') return null;
  const text = input.trim();
  if (text.length === 0 || text.length > MAX_IP_TEXT) return null;
  if (text.includes(':')) {
    if (!IPV6_CHARS.test(text) || !ipaddr.IPv6.isValid(text)) return null;
    // The embedded IPv4 part of an IPv6 literal obeys the same strict rule.
    const lastColon = text.lastIndexOf(':');
    const tail = text.slice(lastColon + 1);
    if (tail.includes('.') && !IPV4_STRICT.test(tail)) return null;
    const v6 = ipaddr.IPv6.parse(text);
    if (v6.isIPv4MappedAddress()) {
      const v4 = v6.toIPv4Address();
      return { family: 4, address: v4.toString(), bytes: v4.toByteArray() };
    }
    return { family: 6, address: v6.toRFC5952String(), bytes: v6.toByteArray() };
  }
  if (!IPV4_STRICT.test(text)) return null;
  const v4 = ipaddr.IPv4.parse(text);
  return { family: 4, address: v4.toString(), bytes: v4.toByteArray() };
}

/** Normalized text form, or null when the input is not an IP address. */
export function normalizeIp(input: unknown): string | null {
  return parseIp(input)?.address ?? null;
}

export interface ParsedCidr {
  family: IpFamily;
  /** Network address (host bits cleared), normalized. */
  network: string;
  prefixLength: number;
  /** `network/prefixLength`. */
  cidr: string;
  bytes: number[];
}

/**
 * Parses `a.b.c.d/n` or `x::/n`; a bare address is a host route (/32 or /128).
 * Host bits set below the prefix are cleared (so 10.0.0.1/8 reads as 10.0.0.0/8);
 * `strict` rejects them instead.
 */
export function parseCidr(input: unknown, options: { strict?: boolean } = {}): ParsedCidr | null {
  if (typeof input !== 'string') return null;
  const text = input.trim();
  const slash = text.indexOf('/');
  const addrText = slash === -1 ? text : text.slice(0, slash);
  const ip = parseIp(addrText);
  if (!ip) return null;
  const max = ip.family === 4 ? 32 : 128;
  let prefixLength = max;
  if (slash !== -1) {
    const lenText = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(lenText)) return null;
    prefixLength = Number(lenText);
    // An IPv4-mapped IPv6 network keeps its meaning on the IPv4 side.
    if (ip.family === 4 && addrText.includes(':')) prefixLength -= 96;
    if (prefixLength < 0 || prefixLength > max) return null;
  }
  const bytes = ip.bytes.slice();
  let changed = false;
  for (let bit = prefixLength; bit < max; bit++) {
    const i = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((bytes[i] as number) & mask) {
      bytes[i] = (bytes[i] as number) & ~mask;
      changed = true;
    }
  }
  if (changed && options.strict) return null;
  const network = bytesToIp(bytes);
  return { family: ip.family, network, prefixLength, cidr: `${network}/${prefixLength}`, bytes };
}

export function bytesToIp(bytes: number[]): string {
  if (bytes.length === 4) return bytes.join('.');
  return ipaddr.fromByteArray(bytes).toString();
}

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

/**
 * The ipaddr.js range name (unicast, private, loopback, linkLocal, reserved, ...).
 * Only `unicast` is globally routable public space.
 */
export function ipRange(ip: ParsedIp): string {
  return ipaddr.fromByteArray(ip.bytes).range();
}

export function isPublicIp(ip: ParsedIp): boolean {
  return ipRange(ip) === 'unicast';
}

/** The /24 of an IPv4 address as a CIDR string (reputation neighbours). */
export function ipv4Slash24(ip: ParsedIp): string {
  return `${ip.bytes[0]}.${ip.bytes[1]}.${ip.bytes[2]}.0/24`;
}
