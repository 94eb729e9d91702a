/**
 * What an address reaches, for the SSRF guard: an IPv6 address that carries an IPv4 address
 * (IPv4-mapped, IPv4-compatible, NAT64, SIIT, 6to4, Teredo) is judged by the IPv4 address a
 * packet to it ends at, not by the IPv6 range it is written in. Everything else must be
 * public unicast: IPv4 outside the special-purpose ranges, IPv6 inside 2000::/3 (the global
 * unicast space) outside the special-purpose ranges (ipaddr.js's range tables, RFC 6890 and
 * the IANA registries).
 */
import ipaddr from 'ipaddr.js';
import { ipv4RangeName, ipv4ToInt, type ParsedIp, parseIp } from '../core/ip.ts';

/**
 * 127.0.0.0/8 or ::1: what the scan's and the MTA-STS fetch's test-only loopback settings let
 * through the guard (nothing else they reach is ever allowed).
 */
export const isLoopback = (ip: ParsedIp): boolean =>
  ip.family === 4 ? ip.bytes[0] === 127 : ip.bytes.slice(0, 15).every((b) => b === 0) && ip.bytes[15] === 1;

/**
 * Public addresses that are a cloud host's own endpoint when reached from inside that cloud
 * (the special-purpose ranges already cover 169.254.169.254, fd00:ec2::254 and 100.100.100.200),
 * by their 32-bit value: 168.63.129.16.
 */
const PLATFORM_ENDPOINTS: ReadonlyMap<number, string> = new Map([
  [ipv4ToInt([168, 63, 129, 16]), 'azureWireServer'],
]);

/** The ipaddr.js range name of an IPv4 address given as four bytes (or a platform endpoint's). */
function v4Range(bytes: readonly number[]): string {
  const v = ipv4ToInt(bytes);
  return PLATFORM_ENDPOINTS.get(v) ?? ipv4RangeName(v);
}

const dotted = (b: readonly number[]) => b.join('.');

/** How an IPv6 address embeds IPv4 addresses, with the IPv4 addresses it reaches. */
interface Embedding {
  /** Refused whatever the IPv4 address is (deprecated forms nothing translates). */
  always?: boolean;
  form: string;
  v4: number[][];
}

/** RFC 6052 §2.2: the IPv4 bytes under a NAT64 prefix of `length` bits (u octet: byte 8). */
function nat64Candidates(b: readonly number[], lengths: readonly number[]): number[][] {
  const out: number[][] = [];
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  for (const length of lengths) {
    if (length === 96) out.push(b.slice(12, 16));
    // Below /96 the u octet and the suffix are zero in a well-formed address; a form that
    // breaks that is not an address under that prefix length.
    else if (length === 64 && b[8] === 0 && zero(13, 16)) out.push(b.slice(9, 13));
    else if (length === 56 && b[8] === 0 && zero(12, 16)) out.push([b[7], ...b.slice(9, 12)] as number[]);
    else if (length === 48 && b[8] === 0 && zero(11, 16)) out.push([...b.slice(6, 8), ...b.slice(9, 11)]);
  }
  return out;
}

function embedding(b: readonly number[]): Embedding | null {
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const word = (i: number) => ((b[i] as number) << 8) | (b[i + 1] as number);
  // ::/96 (not :: and ::1, which ipaddr.js names): IPv4-compatible, deprecated by RFC 4291
  // §2.5.5.1; a host with a sit tunnel still sends it to the IPv4 address.
  if (zero(0, 12) && !zero(12, 15))
    return { always: true, form: 'IPv4-compatible IPv6 (::/96, deprecated)', v4: [b.slice(12, 16)] };
  if (zero(0, 10) && word(10) === 0xffff) return { form: 'IPv4-mapped IPv6', v4: [b.slice(12, 16)] };
  // ::ffff:0:0/96, SIIT (RFC 6145/7915).
  if (zero(0, 8) && word(8) === 0xffff && word(10) === 0)
    return { form: 'IPv4-translated IPv6 (::ffff:0:0/96)', v4: [b.slice(12, 16)] };
  if (word(0) === 0x64 && word(2) === 0xff9b) {
    // 64:ff9b::/96, the well-known NAT64 prefix (RFC 6052).
    if (zero(4, 12)) return { form: 'NAT64 (64:ff9b::/96)', v4: [b.slice(12, 16)] };
    // 64:ff9b:1::/48, local-use NAT64 (RFC 8215): the operator picks the prefix length, so every
    // well-formed reading counts.
    if (word(4) === 1)
      return { form: 'local-use NAT64 (64:ff9b:1::/48)', v4: nat64Candidates(b, [48, 56, 64, 96]) };
    return { always: true, form: 'NAT64 space outside its defined prefixes (64:ff9b::/32)', v4: [] };
  }
  // 2002::/16, 6to4 (RFC 3056): the relay's IPv4 address in bits 16-47.
  if (word(0) === 0x2002) return { form: '6to4 (2002::/16)', v4: [b.slice(2, 6)] };
  // 2001::/32, Teredo (RFC 4380): the server's IPv4 address, then the client's, bits inverted.
  if (word(0) === 0x2001 && word(2) === 0)
    return { form: 'Teredo (2001::/32)', v4: [b.slice(4, 8), b.slice(12, 16).map((x) => x ^ 0xff)] };
  return null;
}

/** Why an address may not receive outbound connections, or null when it reaches public unicast. */
export function refusedReach(address: string): string | null {
  const ip = parseIp(address);
  return ip ? refusedReachOf(ip) : `${address} is not an IP address`;
}

/** refusedReach of an address already parsed. */
export function refusedReachOf(ip: ParsedIp): string | null {
  if (ip.family === 4) {
    const range = v4Range(ip.bytes);
    return range === 'unicast' ? null : `${ip.address} is ${range} address space`;
  }
  const via = embedding(ip.bytes);
  if (via) {
    for (const v4 of via.v4) {
      const range = v4Range(v4);
      if (range !== 'unicast')
        return `${ip.address} is ${via.form} reaching ${dotted(v4)}, ${range} address space`;
    }
    if (via.always || via.v4.length === 0) return `${ip.address} is ${via.form}, refused address space`;
    return null;
  }
  const range = ipaddr.fromByteArray([...ip.bytes]).range();
  if (range !== 'unicast') return `${ip.address} is ${range} address space`;
  // ipaddr.js calls anything it has no name for unicast; global unicast is 2000::/3 only.
  if ((ip.bytes[0] as number) >> 5 !== 1)
    return `${ip.address} is outside the global unicast 2000::/3, reserved address space`;
  return null;
}
