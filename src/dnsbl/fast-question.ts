/**
 * Reads, in place, the question of the common query the fast path answers (fast-path.ts): a
 * QUERY with one IN question for an address name under the zone, optionally with a plain EDNS0
 * OPT record. Nothing is allocated: what is read goes into `question` and `labelStarts`, one of
 * each per thread (the server answers one packet at a time).
 */
import { mappedIpv4 } from './query-name.ts';
import { CLASS_IN, TYPE_OPT } from './wire.ts';
import type { ZoneContext } from './zone-context.ts';

const MAX_LABELS = 40;
const HEX_DIGITS = '0123456789abcdef';

/** The question last read by `readFastQuestion`; valid until the next read. */
export interface FastQuestion {
  /** The query's header flags (bytes 2-3). */
  flags: number;
  qtype: number;
  /** Offset just past the question (its name, type and class). */
  questionEnd: number;
  /** The requestor's EDNS UDP payload size, or null without an OPT record. */
  ednsSize: number | null;
  /** Offset of the zone's first label inside the name (answers point their SOA name at it). */
  zoneStart: number;
  /** The address as an unsigned 32-bit integer (IPv4 and IPv4-mapped IPv6), else -1. */
  int: number;
  /** The IPv6 address as 32 lower-case hex digits when `int` is -1. */
  hex: string;
}

export const question: FastQuestion = {
  flags: 0,
  qtype: 0,
  questionEnd: 0,
  ednsSize: null,
  zoneStart: 0,
  int: -1,
  hex: '',
};

/** Label start offsets of the current question's name, and their count. */
const labelStarts = new Int32Array(MAX_LABELS);
let labelCount = 0;

/**
 * Reads the question into `question`; false when the general path must decide (anything unusual,
 * a name that is not an address under the zone, or one with a bad label). The message is the
 * first `len` bytes of `q` (a batch slot holds more).
 */
export function readFastQuestion(q: Buffer, ctx: ZoneContext, len: number = q.length): boolean {
  const arCount = readHeader(q, len);
  if (arCount < 0) return false;
  const nameEnd = readLabels(q, len);
  if (nameEnd < 0) return false;
  const questionEnd = nameEnd + 4;
  if (questionEnd > len || q[nameEnd + 2] !== 0 || q[nameEnd + 3] !== CLASS_IN) return false;
  question.qtype = (q[nameEnd] as number) * 256 + (q[nameEnd + 1] as number);
  question.questionEnd = questionEnd;
  if (!readEdns(q, len, arCount, questionEnd)) return false;
  const hostLabels = labelCount - ctx.zoneLabelCount;
  if (hostLabels !== 4 && hostLabels !== 32) return false;
  const zoneStart = labelStarts[hostLabels] as number;
  if (!zoneClosesName(q, ctx.zoneWire, zoneStart, nameEnd)) return false;
  question.zoneStart = zoneStart;
  return hostLabels === 4 ? readIpv4(q) : readIpv6(q);
}

/** QR=0 and OPCODE=QUERY; one question, nothing in answer or authority: the additional count (0 or 1), else -1. */
function readHeader(q: Buffer, len: number): number {
  if (len < 17) return -1;
  const flags = (q[2] as number) * 256 + (q[3] as number);
  if ((flags & 0xf800) !== 0) return -1;
  if (q[4] !== 0 || q[5] !== 1 || q[6] !== 0 || q[7] !== 0 || q[8] !== 0 || q[9] !== 0 || q[10] !== 0) {
    return -1;
  }
  const arCount = q[11] as number;
  if (arCount > 1) return -1;
  question.flags = flags;
  return arCount;
}

/** Fills `labelStarts` and `labelCount` with the name's uncompressed labels; the offset past the name, or -1. */
function readLabels(q: Buffer, len: number): number {
  let pos = 12;
  let n = 0;
  for (;;) {
    if (pos >= len) return -1;
    const l = q[pos] as number;
    if (l === 0) break;
    if (l > 63 || n === MAX_LABELS) return -1;
    labelStarts[n++] = pos;
    pos += l + 1;
  }
  labelCount = n;
  return pos + 1;
}

/** The OPT record, if any: plain (version 0, no extended rcode) and last in the message. */
function readEdns(q: Buffer, len: number, arCount: number, questionEnd: number): boolean {
  if (arCount === 0) {
    question.ednsSize = null;
    return questionEnd === len;
  }
  const o = questionEnd;
  if (o + 11 > len || q[o] !== 0 || q[o + 1] !== 0 || q[o + 2] !== TYPE_OPT) return false;
  // Extended rcode and version must be 0 here; BADVERS is the general path's business.
  if (q[o + 5] !== 0 || q[o + 6] !== 0) return false;
  if (o + 11 + (q[o + 9] as number) * 256 + (q[o + 10] as number) !== len) return false;
  question.ednsSize = (q[o + 3] as number) * 256 + (q[o + 4] as number);
  return true;
}

/** The zone's labels close the name (case-insensitive, RFC 4343). */
function zoneClosesName(q: Buffer, zw: Buffer, zoneStart: number, nameEnd: number): boolean {
  if (nameEnd - zoneStart !== zw.length) return false;
  for (let i = 0; i < zw.length; i++) {
    let b = q[zoneStart + i] as number;
    if (b >= 65 && b <= 90) b |= 0x20;
    if (b !== zw[i]) return false;
  }
  return true;
}

/** RFC 5782 §2.1: four decimal labels 0-255 without leading zeros, reversed. */
function readIpv4(q: Buffer): boolean {
  let int = 0;
  for (let k = 3; k >= 0; k--) {
    const v = octetAt(q, labelStarts[k] as number);
    if (v < 0) return false;
    int = int * 256 + v;
  }
  question.int = int;
  return true;
}

/** The decimal label at `s` (its length byte) as 0-255, or -1. */
function octetAt(q: Buffer, s: number): number {
  const l = q[s] as number;
  if (l > 3 || (l > 1 && q[s + 1] === 48)) return -1;
  let v = 0;
  for (let i = 1; i <= l; i++) {
    const d = (q[s + i] as number) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v > 255 ? -1 : v;
}

/** RFC 5782 §2.4: 32 one-digit hex labels, reversed; an IPv4-mapped address is its IPv4 address. */
function readIpv6(q: Buffer): boolean {
  let hex = '';
  for (let k = 31; k >= 0; k--) {
    const s = labelStarts[k] as number;
    if (q[s] !== 1) return false;
    const v = nibble(q[s + 1] as number);
    if (v < 0) return false;
    hex += HEX_DIGITS[v];
  }
  question.int = mappedIpv4(hex);
  question.hex = hex;
  return true;
}

/** Hex value of a nibble label byte (either case), or -1. */
function nibble(b: number): number {
  if (b >= 48 && b <= 57) return b - 48;
  const l = b | 0x20;
  return l >= 97 && l <= 102 ? l - 87 : -1;
}
