import ipaddr from 'ipaddr.js';
import { ipv4RangeName, ipv4ToInt } from './ip-numbers.ts';
import { rfc5952Text } from './ipv6-text.ts';

export { bigIntToIpv6, intToIpv4, ipv4RangeName, ipv4ToInt, ipv6ToBigInt } from './ip-numbers.ts';
export { formatV6 } from './ipv6-text.ts';

/**
 * IP address normalization, one set of rules for every route and importer:
 * - surrounding whitespace is trimmed;
 * - IPv4 must be four decimal parts 0-255; a part with a leading zero ("010") is rejected,
 *   because resolvers disagree whether it is octal;
 * - IPv6 is written in RFC 5952 form (lower case, longest zero run compressed);
 * - an IPv4-mapped IPv6 address (::ffff:a.b.c.d, also ::FFFF:7f00:2) is the IPv4 address; the
 *   deprecated IPv4-compatible form `::a.b.c.d` (RFC 4291 §2.5.5.1) is not: it is the IPv6
 *   address it spells (`::1.2.3.4` is `::102:304`), unlike ipaddr.js, which reads it as mapped;
 * - hex groups have 1-4 digits (either case); one `::` standing for at least one group;
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

// The parser below is hand-written for the lookup path (a regex and ipaddr.js object per call
// cost more than the lookup itself). ip.test.ts checks it against the ipaddr.js reading of the
// same rules on random strings: same accept/reject decision, same normalized text, same bytes.

/** The decimal digit at text[i], or -1 (past `to` included). */
function digitAt(text: string, i: number, to: number): number {
  if (i >= to) return -1;
  const d = text.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : -1;
}

/**
 * A strict dotted quad in text[from, to), in one pass: 4 decimal parts 0-255, no leading zeros.
 * The address as an unsigned int, or -1. Read part by part, each of one to three digits then a
 * dot (a loop over characters with a state per digit mispredicts at every part of random
 * lengths). Returning the number, not filling an array of parts, keeps the common
 * text-to-answer path free of stores and reloads.
 */
function readV4(text: string, from: number, to: number): number {
  let word = 0;
  let i = from;
  for (let k = 0; k < 4; k++) {
    let value = digitAt(text, i++, to);
    if (value < 0) return -1;
    let d = digitAt(text, i, to);
    if (d >= 0) {
      if (value === 0) return -1; // a leading zero
      value = value * 10 + d;
      d = digitAt(text, ++i, to);
      if (d >= 0) {
        value = value * 10 + d;
        if (value > 255) return -1;
        i++;
      }
    }
    word = (word << 8) | value;
    if (k < 3) {
      if (i >= to || text.charCodeAt(i) !== 46) return -1;
      i++;
    }
  }
  return i === to ? word >>> 0 : -1;
}

/**
 * Hex digit values by character code (-1: not a hex digit), for every UTF-16 code unit, so that
 * a read needs no range check (64 KB, of which a parse touches two cache lines); an upper-case
 * letter has 16 added (its value is the low four bits), so that a parse can tell it saw one.
 */
const HEX_DIGIT = new Int8Array(65536).fill(-1);
for (let d = 0; d < 16; d++) {
  HEX_DIGIT['0123456789abcdef'.charCodeAt(d)] = d;
  HEX_DIGIT['0123456789ABCDEF'.charCodeAt(d)] = d < 10 ? d : d + 16;
}

const groups = [0, 0, 0, 0, 0, 0, 0, 0];

/**
 * What readGroups saw besides the groups: whether the text had no upper-case digit and no
 * leading zero, and where its `::` was (-1: none) and how many groups it stood for. With these
 * the text is RFC 5952 text exactly when `::` stands for the run that form compresses.
 */
let groupsPlain = true;
let gapAt = -1;
let gapLen = 0;

/**
 * IPv6 groups in text[from, to) into `groups`: 1-4 hex digits each, at most one `::` that
 * stands for at least one group, `want` groups in all. Returns false when malformed.
 */
function readGroups(text: string, from: number, to: number, want: number): boolean {
  let n = 0;
  let gap = -1;
  let seen = 0;
  let zeros = 0;
  let i = from;
  if (i + 1 < to && text.charCodeAt(i) === 58 && text.charCodeAt(i + 1) === 58) {
    gap = 0;
    i += 2;
  }
  while (i < to) {
    let value = 0;
    const first = i;
    // Each character is read once: the one that ends a group is the separator checked below.
    let c = 0;
    while (i < to) {
      c = text.charCodeAt(i);
      const h = HEX_DIGIT[c] as number;
      if (h < 0) break;
      value = (value << 4) | (h & 15);
      seen |= h;
      i++;
    }
    const digits = i - first;
    if (digits === 0) {
      // An empty group is the second colon of the one `::`, after a group.
      if (c !== 58 || gap >= 0 || n === 0) return false;
      gap = n;
      i++;
      continue;
    }
    if (digits > 4 || n >= want) return false;
    // A leading zero (the value has fewer digits than were written) is not RFC 5952 text.
    if (digits > 1 && value >>> (4 * digits - 4) === 0) zeros = 1;
    groups[n++] = value;
    if (i === to) break;
    if (c !== 58) return false;
    i++;
    if (i === to) return false;
  }
  groupsPlain = zeros === 0 && (seen & 16) === 0;
  gapAt = gap;
  gapLen = 0;
  if (gap < 0) return n === want;
  if (n >= want) return false;
  const shift = want - n;
  gapLen = shift;
  for (let k = n - 1; k >= gap; k--) groups[k + shift] = groups[k] as number;
  for (let k = gap; k < gap + shift; k++) groups[k] = 0;
  return true;
}

/**
 * The RFC 5952 text of `groups` as read from `text` (eight groups, no dotted quad): `text`
 * itself when it is already written so (the common case for addresses that come from logs and
 * other programs: no new string, no second pass over the text), else a new string.
 */
function v6Text(text: string): string {
  return rfc5952Text(text, groups, groupsPlain, gapAt, gapLen);
}

/**
 * An address read in place by readIp: one object per caller, reused by every call, so reading
 * text into the lookup engine allocates nothing (but the normalized text of an address that was
 * not written in normalized form).
 */
export interface IpWords {
  family: IpFamily;
  /** Normalized text form (the input string itself when it already was). */
  address: string;
  /** IPv4: the address as an unsigned int in words[0]; IPv6: four big-endian 32-bit words. */
  words: Uint32Array;
}

export function ipWords(): IpWords {
  return { family: 4, address: '', words: new Uint32Array(4) };
}

function setV4(out: IpWords, word: number, address: string): true {
  out.family = 4;
  out.address = address;
  out.words[0] = word;
  return true;
}

/** `groups` (already read) into `out`: an IPv4-mapped address is the IPv4 address. */
function setV6(out: IpWords, text: string): true {
  const g = groups;
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff) {
    const hi = g[6] as number;
    const lo = g[7] as number;
    out.family = 4;
    out.address = `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
    out.words[0] = ((hi << 16) | lo) >>> 0;
    return true;
  }
  const w = out.words;
  w[0] = (((g[0] as number) << 16) | (g[1] as number)) >>> 0;
  w[1] = (((g[2] as number) << 16) | (g[3] as number)) >>> 0;
  w[2] = (((g[4] as number) << 16) | (g[5] as number)) >>> 0;
  w[3] = (((g[6] as number) << 16) | (g[7] as number)) >>> 0;
  out.family = 6;
  out.address = v6Text(text);
  return true;
}

/** An IPv6 address with a dotted quad tail (or not an address). */
function readV6Quad(text: string, out: IpWords): boolean {
  const n = text.length;
  const lastColon = text.lastIndexOf(':');
  const dot = text.indexOf('.');
  if (dot === -1) return false;
  // An embedded IPv4 tail: dots only after the last colon, in a strict dotted quad.
  if (dot < lastColon) return false;
  const quad = readV4(text, lastColon + 1, n);
  if (quad < 0) return false;
  // The six groups before the tail: `x:...:` drops its separator colon, `...::` keeps its gap.
  const headEnd = lastColon > 0 && text.charCodeAt(lastColon - 1) === 58 ? lastColon + 1 : lastColon;
  if (headEnd === 0 || !readGroups(text, 0, headEnd, 6)) return false;
  groups[6] = quad >>> 16;
  groups[7] = quad & 0xffff;
  groupsPlain = false; // a dotted quad tail is never RFC 5952 text (setV6 writes a mapped one anew)
  return setV6(out, text);
}

function isSpaceEdge(c: number): boolean {
  return c <= 32 || c >= 127;
}

/**
 * parseIp without the ParsedIp: reads `input` into `out` (see IpWords) and returns true, or
 * returns false (leaving `out` in an unspecified state) when it is not an IP address. The same
 * rules and the same normalized text as parseIp.
 */
export function readIp(input: unknown, out: IpWords): boolean {
  if (typeof input !== 'string') return false;
  // The common case first: a plain dotted quad as given. readV4 refuses anything else (spaces,
  // a colon), which then takes the full path below.
  const n0 = input.length;
  if (n0 >= 7 && n0 <= 15) {
    const word = readV4(input, 0, n0);
    if (word >= 0) return setV4(out, word, input);
  }
  let text = input;
  if (text.length === 0) return false;
  if (isSpaceEdge(text.charCodeAt(0)) || isSpaceEdge(text.charCodeAt(text.length - 1))) text = text.trim();
  const n = text.length;
  if (n === 0 || n > MAX_IP_TEXT) return false;
  // Eight hex groups (the common IPv6 text) first: that read fails fast on anything else.
  if (readGroups(text, 0, n, 8)) return setV6(out, text);
  if (text.indexOf(':') === -1) {
    const word = readV4(text, 0, n);
    return word >= 0 && setV4(out, word, text);
  }
  return readV6Quad(text, out);
}

const parseScratch = ipWords();

/** The bytes and text of a parse, as a new ParsedIp. */
export function toParsedIp(ip: IpWords): ParsedIp {
  const w = ip.words;
  if (ip.family === 4) {
    const v = w[0] as number;
    return { family: 4, address: ip.address, bytes: [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255] };
  }
  const bytes: number[] = [];
  for (let k = 0; k < 4; k++) {
    const v = w[k] as number;
    bytes.push(v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255);
  }
  return { family: 6, address: ip.address, bytes };
}

export function parseIp(input: unknown): ParsedIp | null {
  return readIp(input, parseScratch) ? toParsedIp(parseScratch) : null;
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
  const prefixLength = slash === -1 ? maxPrefix(ip) : prefixLengthOf(text.slice(slash + 1), ip, addrText);
  if (prefixLength < 0) return null;
  const bytes = ip.bytes.slice();
  if (clearHostBits(bytes, prefixLength, maxPrefix(ip)) && options.strict) return null;
  const network = bytesToIp(bytes);
  return { family: ip.family, network, prefixLength, cidr: `${network}/${prefixLength}`, bytes };
}

function maxPrefix(ip: ParsedIp): number {
  return ip.family === 4 ? 32 : 128;
}

/** The prefix length written after the slash, for the address read from `addrText`; -1 when invalid. */
function prefixLengthOf(lenText: string, ip: ParsedIp, addrText: string): number {
  if (!/^\d{1,3}$/.test(lenText)) return -1;
  let prefixLength = Number(lenText);
  // An IPv4-mapped IPv6 network keeps its meaning on the IPv4 side.
  if (ip.family === 4 && addrText.includes(':')) prefixLength -= 96;
  return prefixLength < 0 || prefixLength > maxPrefix(ip) ? -1 : prefixLength;
}

/** Clears the bits of `bytes` from `prefixLength` to `max`; whether any was set. */
function clearHostBits(bytes: number[], prefixLength: number, max: number): boolean {
  let changed = false;
  for (let bit = prefixLength; bit < max; bit++) {
    const i = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((bytes[i] as number) & mask) {
      bytes[i] = (bytes[i] as number) & ~mask;
      changed = true;
    }
  }
  return changed;
}

export function bytesToIp(bytes: number[]): string {
  if (bytes.length === 4) return bytes.join('.');
  return ipaddr.fromByteArray(bytes).toString();
}

/**
 * The ipaddr.js range name (unicast, private, loopback, linkLocal, reserved, ...).
 * Only `unicast` is globally routable public space.
 */
export function ipRange(ip: ParsedIp): string {
  return ip.family === 4 ? ipv4RangeName(ipv4ToInt(ip.bytes)) : ipaddr.fromByteArray(ip.bytes).range();
}

export function isPublicIp(ip: ParsedIp): boolean {
  return ipRange(ip) === 'unicast';
}

/**
 * What an anonymous rate limit counts: an IPv4 client by its address, an IPv6 client by its /64
 * (RFC 7421: one end site's LAN, in which a host picks any of 2^64 addresses, so counting
 * addresses alone would let one client rotate past every limit).
 */
export function rateLimitSubject(ip: ParsedIp): string {
  if (ip.family === 4) return ip.address;
  return (parseCidr(`${ip.address}/64`) as ParsedCidr).cidr;
}

/** The /24 of an IPv4 address as a CIDR string (reputation neighbours). */
export function ipv4Slash24(ip: ParsedIp): string {
  return `${ip.bytes[0]}.${ip.bytes[1]}.${ip.bytes[2]}.0/24`;
}
