/**
 * Hand-written answer path for the common query: one IN question for an address name under the
 * zone, optionally with a plain EDNS0 OPT record. Reads the question in place and writes the
 * answer bytes directly; anything unusual returns undefined and goes to the dns-packet path.
 */
import type { StoredListing } from './listing-index.ts';
import { ipv6Target, targetIp } from './query-name.ts';
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
import { findIpv4, findIpv6, type ZoneContext } from './zone-context.ts';

const MAX_LABELS = 40;
const HEX_DIGITS = '0123456789abcdef';
/** Label start offsets of the current question; the server answers one packet at a time. */
const starts = new Int32Array(MAX_LABELS);

/** Hex value of a nibble label byte (either case), or -1. */
function nibble(b: number): number {
  if (b >= 48 && b <= 57) return b - 48;
  const l = b | 0x20;
  return l >= 97 && l <= 102 ? l - 87 : -1;
}

/**
 * Answer bytes, or undefined when the general path must decide.
 * `tcp` lifts the UDP size limit (RFC 7766).
 */
export function answerFast(q: Buffer, ctx: ZoneContext, tcp: boolean): Buffer | undefined {
  const len = q.length;
  if (len < 17) return undefined;
  const flags = (q[2] as number) * 256 + (q[3] as number);
  // QR=0 and OPCODE=QUERY; one question, nothing in answer or authority, at most an OPT.
  if ((flags & 0xf800) !== 0) return undefined;
  if (q[4] !== 0 || q[5] !== 1 || q[6] !== 0 || q[7] !== 0 || q[8] !== 0 || q[9] !== 0 || q[10] !== 0) {
    return undefined;
  }
  const arCount = q[11] as number;
  if (arCount > 1) return undefined;

  let pos = 12;
  let n = 0;
  for (;;) {
    if (pos >= len) return undefined;
    const l = q[pos] as number;
    if (l === 0) break;
    if (l > 63 || n === MAX_LABELS) return undefined;
    starts[n++] = pos;
    pos += l + 1;
  }
  const nameEnd = pos + 1;
  const questionEnd = nameEnd + 4;
  if (questionEnd > len) return undefined;
  const qtype = (q[nameEnd] as number) * 256 + (q[nameEnd + 1] as number);
  if (q[nameEnd + 2] !== 0 || q[nameEnd + 3] !== CLASS_IN) return undefined;

  let ednsSize: number | null = null;
  if (arCount === 1) {
    const o = questionEnd;
    if (o + 11 > len || q[o] !== 0 || q[o + 1] !== 0 || q[o + 2] !== TYPE_OPT) return undefined;
    // Extended rcode and version must be 0 here; BADVERS is the general path's business.
    if (q[o + 5] !== 0 || q[o + 6] !== 0) return undefined;
    if (o + 11 + (q[o + 9] as number) * 256 + (q[o + 10] as number) !== len) return undefined;
    ednsSize = (q[o + 3] as number) * 256 + (q[o + 4] as number);
  } else if (questionEnd !== len) {
    return undefined;
  }

  // The zone's labels must close the name (case-insensitive, RFC 4343).
  const hostLabels = n - ctx.zoneLabelCount;
  if (hostLabels !== 4 && hostLabels !== 32) return undefined;
  const zoneStart = starts[hostLabels] as number;
  const zw = ctx.zoneWire;
  if (nameEnd - zoneStart !== zw.length) return undefined;
  for (let i = 0; i < zw.length; i++) {
    let b = q[zoneStart + i] as number;
    if (b >= 65 && b <= 90) b |= 0x20;
    if (b !== zw[i]) return undefined;
  }

  let listing: StoredListing | undefined;
  let int = -1;
  let hex = '';
  if (hostLabels === 4) {
    int = 0;
    for (let k = 3; k >= 0; k--) {
      const s = starts[k] as number;
      const l = q[s] as number;
      if (l > 3 || (l > 1 && q[s + 1] === 48)) return undefined;
      let v = 0;
      for (let i = 1; i <= l; i++) {
        const d = (q[s + i] as number) - 48;
        if (d < 0 || d > 9) return undefined;
        v = v * 10 + d;
      }
      if (v > 255) return undefined;
      int = int * 256 + v;
    }
    listing = findIpv4(ctx, int);
  } else {
    for (let k = 31; k >= 0; k--) {
      const s = starts[k] as number;
      if (q[s] !== 1) return undefined;
      const v = nibble(q[s + 1] as number);
      if (v < 0) return undefined;
      hex += HEX_DIGITS[v];
    }
    const target = ipv6Target(hex);
    if (target.kind === 'ipv4') {
      int = target.int;
      listing = findIpv4(ctx, int);
    } else {
      listing = findIpv6(ctx, hex);
    }
  }

  const wantA = listing !== undefined && (qtype === TYPE_A || qtype === TYPE_ANY);
  const wantTxt = listing !== undefined && (qtype === TYPE_TXT || qtype === TYPE_ANY);
  let txt: Buffer | null = null;
  if (wantTxt && listing) {
    const ip = int >= 0 ? `${int >>> 24}.${(int >>> 16) & 255}.${(int >>> 8) & 255}.${int & 255}` : null;
    txt = encodeTxtRdata(txtText(listing.reason, ctx.lookupUrl(ip ?? targetIp({ kind: 'ipv6', hex }))));
  }
  const negative = !wantA && !wantTxt;
  const rcode = listing === undefined ? RCODE_NXDOMAIN : RCODE_NOERROR;

  const optLen = ednsSize === null ? 0 : 11;
  const soaLen = negative ? 12 + ctx.soaRdata.length : 0;
  const size = questionEnd + (wantA ? 16 : 0) + (txt ? 12 + txt.length : 0) + soaLen + optLen;
  const limit = tcp ? 65535 : udpLimit(ednsSize);
  const truncated = size > limit;
  const out = Buffer.allocUnsafe(truncated ? questionEnd + optLen : size);
  q.copy(out, 0, 0, questionEnd);
  const outFlags = FLAG_QR | FLAG_AA | (flags & (FLAG_RD | FLAG_CD)) | (truncated ? FLAG_TC : 0) | rcode;
  out[2] = outFlags >>> 8;
  out[3] = outFlags & 255;
  let an = 0;
  let ns = 0;
  let p = questionEnd;
  if (!truncated) {
    if (wantA && listing) {
      p = writeRrHead(out, p, 0xc00c, TYPE_A, ctx.ttl, 4);
      out.writeUInt32BE(listing.returnCodeInt >>> 0, p);
      p += 4;
      an++;
    }
    if (txt) {
      p = writeRrHead(out, p, 0xc00c, TYPE_TXT, ctx.ttl, txt.length);
      p += txt.copy(out, p);
      an++;
    }
    if (negative) {
      // RFC 2308 §3: the SOA goes in authority; its name points at the zone inside the question.
      p = writeRrHead(out, p, 0xc000 | zoneStart, TYPE_SOA, ctx.soa.minimum, ctx.soaRdata.length);
      p += ctx.soaRdata.copy(out, p);
      ns++;
    }
  }
  out[6] = 0;
  out[7] = an;
  out[8] = 0;
  out[9] = ns;
  out[10] = 0;
  out[11] = optLen > 0 ? 1 : 0;
  if (optLen > 0) {
    out[p] = 0;
    out.writeUInt16BE(TYPE_OPT, p + 1);
    out.writeUInt16BE(EDNS_UDP_MAX, p + 3);
    out.writeUInt32BE(0, p + 5);
    out.writeUInt16BE(0, p + 9);
  }
  return out;
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
  return p + 12;
}
