/**
 * Writes the fast path's answer bytes (fast-path.ts) for the question `fast-question.ts` read:
 * A and TXT records for a listed address, the SOA in authority otherwise (RFC 2308 §3), an OPT
 * record when the query had one, and TC with empty sections when the answer does not fit UDP.
 */
import { question } from './fast-question.ts';
import type { StoredListing } from './listing-index.ts';
import { targetIp } from './query-name.ts';
import {
  CLASS_IN,
  EDNS_UDP_MAX,
  encodeTxtRdata,
  FLAG_AA,
  FLAG_CD,
  FLAG_QR,
  FLAG_RD,
  FLAG_TC,
  RCODE_NOERROR,
  RCODE_NXDOMAIN,
  TYPE_A,
  TYPE_ANY,
  TYPE_OPT,
  TYPE_SOA,
  TYPE_TXT,
  txtText,
  udpLimit,
} from './wire.ts';
import type { ZoneContext } from './zone-context.ts';

const RR_HEAD = 12;
const OPT_LEN = 11;

/** The answer being written: its records and size, set by `prepare` (one answer at a time). */
const answer = {
  listing: undefined as StoredListing | undefined,
  a: undefined as StoredListing | undefined,
  txt: null as Buffer | null,
  optLen: 0,
  truncated: false,
};

/** The answer to `q` (whose question `question` holds) for `listing` (undefined: not listed). */
export function writeFastAnswer(
  q: Buffer,
  ctx: ZoneContext,
  tcp: boolean,
  listing: StoredListing | undefined,
): Buffer {
  const out = Buffer.allocUnsafe(prepare(ctx, tcp, listing));
  writePrepared(q, ctx, out);
  return out;
}

/**
 * The same answer written into `out` from its start (a batch slot: 65,536 bytes, more than any
 * answer), with no allocation for an A answer; returns its length.
 */
export function writeFastAnswerInto(
  q: Buffer,
  ctx: ZoneContext,
  listing: StoredListing | undefined,
  out: Buffer,
): number {
  const size = prepare(ctx, false, listing);
  writePrepared(q, ctx, out);
  return size;
}

/** Chooses the records and the size of the answer; returns the size. */
function prepare(ctx: ZoneContext, tcp: boolean, listing: StoredListing | undefined): number {
  const { qtype, questionEnd, ednsSize } = question;
  answer.listing = listing;
  answer.a = listing !== undefined && (qtype === TYPE_A || qtype === TYPE_ANY) ? listing : undefined;
  answer.txt =
    listing !== undefined && (qtype === TYPE_TXT || qtype === TYPE_ANY) ? txtRdata(ctx, listing) : null;
  answer.optLen = ednsSize === null ? 0 : OPT_LEN;
  const size = questionEnd + recordsSize(ctx, answer.a, answer.txt) + answer.optLen;
  answer.truncated = size > (tcp ? 65535 : udpLimit(ednsSize));
  return answer.truncated ? questionEnd + answer.optLen : size;
}

function writePrepared(q: Buffer, ctx: ZoneContext, out: Buffer): void {
  const { questionEnd } = question;
  const { a, txt, optLen, truncated } = answer;
  q.copy(out, 0, 0, questionEnd);
  const rcode = answer.listing === undefined ? RCODE_NXDOMAIN : RCODE_NOERROR;
  const flags =
    FLAG_QR | FLAG_AA | (question.flags & (FLAG_RD | FLAG_CD)) | (truncated ? FLAG_TC : 0) | rcode;
  out[2] = flags >>> 8;
  out[3] = flags & 255;
  const p = truncated ? writeCounts(out, questionEnd, 0, 0) : writeRecords(out, questionEnd, ctx, a, txt);
  out[10] = 0;
  out[11] = optLen > 0 ? 1 : 0;
  if (optLen > 0) writeOpt(out, p);
  // Nothing of this answer is kept past it.
  answer.listing = undefined;
  answer.a = undefined;
  answer.txt = null;
}

/** Bytes of the answer and authority sections: A and TXT when asked for, else the SOA. */
function recordsSize(ctx: ZoneContext, a: StoredListing | undefined, txt: Buffer | null): number {
  if (a === undefined && txt === null) return RR_HEAD + ctx.soaRdata.length;
  return (a ? RR_HEAD + 4 : 0) + (txt ? RR_HEAD + txt.length : 0);
}

/** The records after the question at `p`, with their counts; the offset past them. */
function writeRecords(
  out: Buffer,
  p: number,
  ctx: ZoneContext,
  a: StoredListing | undefined,
  txt: Buffer | null,
): number {
  if (a === undefined && txt === null) return writeCounts(out, writeSoa(out, p, ctx), 0, 1);
  let at = p;
  if (a) at = writeA(out, at, ctx, a);
  if (txt) at = writeTxt(out, at, ctx, txt);
  return writeCounts(out, at, (a ? 1 : 0) + (txt ? 1 : 0), 0);
}

/** TXT rdata: the listing's reason and the lookup URL of the asked address. */
function txtRdata(ctx: ZoneContext, listing: StoredListing): Buffer {
  const int = question.int;
  const ip =
    int >= 0
      ? `${int >>> 24}.${(int >>> 16) & 255}.${(int >>> 8) & 255}.${int & 255}`
      : targetIp({ kind: 'ipv6', hex: question.hex });
  return encodeTxtRdata(txtText(listing.reason, ctx.lookupUrl(ip)));
}

function writeA(out: Buffer, p: number, ctx: ZoneContext, listing: StoredListing): number {
  const at = writeRrHead(out, p, 0xc00c, TYPE_A, ctx.ttl, 4);
  out.writeUInt32BE(listing.returnCodeInt >>> 0, at);
  return at + 4;
}

function writeTxt(out: Buffer, p: number, ctx: ZoneContext, txt: Buffer): number {
  const at = writeRrHead(out, p, 0xc00c, TYPE_TXT, ctx.ttl, txt.length);
  return at + txt.copy(out, at);
}

/** RFC 2308 §3: the SOA goes in authority; its name points at the zone inside the question. */
function writeSoa(out: Buffer, p: number, ctx: ZoneContext): number {
  const at = writeRrHead(out, p, 0xc000 | question.zoneStart, TYPE_SOA, ctx.soa.minimum, ctx.soaRdata.length);
  return at + ctx.soaRdata.copy(out, at);
}

/** The answer and authority counts; returns `p`, for chaining. */
function writeCounts(out: Buffer, p: number, an: number, ns: number): number {
  out[6] = 0;
  out[7] = an;
  out[8] = 0;
  out[9] = ns;
  return p;
}

/** Our OPT record: version 0, our UDP payload size, no flags or options (RFC 6891 §6.1.2). */
function writeOpt(out: Buffer, p: number): void {
  out[p] = 0;
  out.writeUInt16BE(TYPE_OPT, p + 1);
  out.writeUInt16BE(EDNS_UDP_MAX, p + 3);
  out.writeUInt32BE(0, p + 5);
  out.writeUInt16BE(0, p + 9);
}

function writeRrHead(
  out: Buffer,
  p: number,
  namePtr: number,
  type: number,
  ttl: number,
  rdlen: number,
): number {
  out.writeUInt16BE(namePtr, p);
  out.writeUInt16BE(type, p + 2);
  out.writeUInt16BE(CLASS_IN, p + 4);
  out.writeUInt32BE(ttl, p + 6);
  out.writeUInt16BE(rdlen, p + 10);
  return p + RR_HEAD;
}
