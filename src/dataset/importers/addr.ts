import { formatV6 } from '../../core/ip.ts';
import type { AddrRange, Family, TextInput } from './types.ts';

/** One decimal octet in text[from, to): 0-255 in one to three digits, no leading zero; else -1. */
function octetAt(text: string, from: number, to: number): number {
  const digits = to - from;
  if (digits === 0 || digits > 3) return -1;
  if (digits > 1 && text.charCodeAt(from) === 48) return -1;
  let value = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value > 255 ? -1 : value;
}

/** Strict dotted-quad to unsigned int; -1 when invalid (leading zeros are refused). */
export function parseV4(text: string): number {
  let value = 0;
  let from = 0;
  for (let k = 0; k < 3; k++) {
    const dot = text.indexOf('.', from);
    const octet = dot === -1 ? -1 : octetAt(text, from, dot);
    if (octet < 0) return -1;
    value = value * 256 + octet;
    from = dot + 1;
  }
  // A fourth dot makes the last part no octet.
  const last = octetAt(text, from, text.length);
  return last < 0 ? -1 : value * 256 + last;
}

function hexGroup(text: string): number {
  if (text.length === 0 || text.length > 4) return -1;
  let v = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 97 && c <= 102) d = c - 87;
    else if (c >= 65 && c <= 70) d = c - 55;
    else return -1;
    v = v * 16 + d;
  }
  return v;
}

function groupsOf(text: string): number[] | null {
  if (text === '') return [];
  const out: number[] = [];
  const parts = text.split(':');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as string;
    if (i === parts.length - 1 && p.includes('.')) {
      const v4 = parseV4(p);
      if (v4 < 0) return null;
      out.push(Math.floor(v4 / 65536), v4 % 65536);
    } else {
      const g = hexGroup(p);
      if (g < 0) return null;
      out.push(g);
    }
  }
  return out;
}

/** RFC 4291 text form to a 128-bit bigint; null when invalid (no zone ids, no brackets). */
export function parseV6(text: string): bigint | null {
  if (text.length < 2 || text.length > 45) return null;
  const dbl = text.indexOf('::');
  let groups: number[];
  if (dbl === -1) {
    const g = groupsOf(text);
    if (g?.length !== 8) return null;
    groups = g;
  } else {
    if (text.indexOf('::', dbl + 1) !== -1) return null;
    const head = groupsOf(text.slice(0, dbl));
    const tail = groupsOf(text.slice(dbl + 2));
    if (!head || !tail || head.length + tail.length > 7) return null;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  let hi = 0n;
  for (const g of groups) hi = (hi << 16n) | BigInt(g);
  return hi;
}

export interface ParsedAddr {
  family: Family;
  value: bigint;
}

/** An IPv4 or IPv6 address as family + bigint. IPv4-mapped IPv6 stays IPv6 here (ranges keep their family). */
export function parseAddr(text: string): ParsedAddr | null {
  if (text.includes(':')) {
    const v = parseV6(text);
    return v === null ? null : { family: 6, value: v };
  }
  const v = parseV4(text);
  return v < 0 ? null : { family: 4, value: BigInt(v) };
}

export function familyBits(family: Family): number {
  return family === 4 ? 32 : 128;
}

/**
 * `addr/len` (or a bare address = host route) to an inclusive range. Host bits below the
 * prefix are cleared, as core/ip.ts parseCidr does; `strict` refuses them instead.
 */
export function parseCidrRange(text: string, strict = false): (AddrRange & { prefixLength: number }) | null {
  const slash = text.indexOf('/');
  const addr = parseAddr(slash === -1 ? text : text.slice(0, slash));
  if (!addr) return null;
  const bits = familyBits(addr.family);
  let len = bits;
  if (slash !== -1) {
    const lenText = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(lenText)) return null;
    len = Number(lenText);
    if (len > bits) return null;
  }
  const hostBits = BigInt(bits - len);
  const start = (addr.value >> hostBits) << hostBits;
  if (strict && start !== addr.value) return null;
  const end = start + (1n << hostBits) - 1n;
  return { family: addr.family, start, end, prefixLength: len };
}

/** Decode importer input: strings pass through, bytes are UTF-8 unless latin1 is asked for. */
export function decodeText(input: TextInput, encoding: 'utf8' | 'latin1' = 'utf8'): string {
  if (typeof input === 'string') return input;
  return Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString(encoding);
}

/** Lines without their terminators (CRLF, LF; a missing final newline is fine). */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const formatGroups = [0, 0, 0, 0, 0, 0, 0, 0];

/** IPv4 dotted quad, IPv6 in RFC 5952 form (core/ip.ts formatV6: the one zero-run search). */
export function formatAddr(family: Family, value: bigint): string {
  if (family === 4) {
    const n = Number(value);
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  }
  for (let i = 0; i < 8; i++) formatGroups[i] = Number((value >> BigInt((7 - i) * 16)) & 0xffffn);
  return formatV6(formatGroups);
}

/** The CIDR blocks exactly covering an inclusive range. */
export function rangeToCidrs(family: Family, start: bigint, end: bigint): string[] {
  const bits = familyBits(family);
  const out: string[] = [];
  let cur = start;
  while (cur <= end) {
    let size = 0;
    while (size < bits) {
      const next = size + 1;
      const block = 1n << BigInt(next);
      if (cur % block !== 0n || cur + block - 1n > end) break;
      size = next;
    }
    out.push(`${formatAddr(family, cur)}/${bits - size}`);
    cur += 1n << BigInt(size);
  }
  return out;
}
