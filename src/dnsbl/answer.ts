/**
 * The general answer path: every query the fast path declines (apex, errors, odd flags, EDNS
 * versions, compression in the question, names that are not addresses). dns-packet validates the
 * whole message and encodes the answer.
 */
import dnsPacket, { type Answer, type Packet } from 'dns-packet';
import type { StoredListing } from './listing-index.ts';
import { classifyLabels, type QueryTarget, targetIp } from './query-name.ts';
import {
  CLASS_ANY,
  CLASS_IN,
  EDNS_UDP_MAX,
  FLAG_AA,
  FLAG_CD,
  FLAG_QR,
  FLAG_RD,
  FLAG_TC,
  RCODE_BADVERS,
  RCODE_FORMERR,
  RCODE_NOERROR,
  RCODE_NOTIMP,
  RCODE_NXDOMAIN,
  RCODE_REFUSED,
  TYPE_A,
  TYPE_ANY,
  TYPE_NS,
  TYPE_SOA,
  TYPE_TXT,
  txtChunks,
  txtText,
  UDP_CLASSIC_MAX,
  udpLimit,
} from './wire.ts';
import { findIpv4, findIpv6, type ZoneContext } from './zone-context.ts';

interface WireQuestion {
  /** Labels as sent (case kept), read byte for byte. */
  labels: string[];
  qtype: number;
  qclass: number;
}

/** Reads the first question's name, type and class straight from the wire; null if malformed. */
export function readQuestion(buf: Buffer): WireQuestion | null {
  const labels: string[] = [];
  const end = readName(buf, labels);
  if (end < 0 || end + 4 > buf.length) return null;
  return { labels, qtype: buf.readUInt16BE(end), qclass: buf.readUInt16BE(end + 2) };
}

/** The labels of the name at offset 12 pushed to `labels`; the offset just past the name as it sits in the question, or -1. */
function readName(buf: Buffer, labels: string[]): number {
  const end = questionNameEnd(buf);
  return end >= 0 && collectLabels(buf, labels) ? end : -1;
}

/** Offset past the question's name: after its root label or its first compression pointer. */
function questionNameEnd(buf: Buffer): number {
  let pos = 12;
  while (pos < buf.length) {
    const l = buf[pos] as number;
    if (l === 0) return pos + 1;
    if ((l & 0xc0) === 0xc0) return pos + 2;
    pos += 1 + l;
  }
  return -1;
}

/** Pushes the name's labels, following compression pointers (at most 16); false if malformed. */
function collectLabels(buf: Buffer, labels: string[]): boolean {
  let pos = 12;
  for (let jumps = 0; jumps <= 16; ) {
    if (pos >= buf.length) return false;
    const l = buf[pos] as number;
    if (l === 0) return true;
    if ((l & 0xc0) === 0xc0) {
      pos = pointerTarget(buf, pos);
      jumps++;
    } else if (l > 63 || pos + 1 + l > buf.length) {
      return false;
    } else {
      labels.push(buf.toString('latin1', pos + 1, pos + 1 + l));
      pos += 1 + l;
    }
  }
  return false;
}

/** Where the compression pointer at `pos` points (RFC 1035 §4.1.4); past the buffer when cut. */
function pointerTarget(buf: Buffer, pos: number): number {
  if (pos + 1 >= buf.length) return buf.length;
  return (((buf[pos] as number) & 0x3f) << 8) | (buf[pos + 1] as number);
}

/** A header-only reply: same id, opcode and RD, no sections (RFC 1035 §4.1.1). */
export function headerReply(q: Buffer, rcode: number): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt16BE(q.readUInt16BE(0), 0);
  out.writeUInt16BE(FLAG_QR | (q.readUInt16BE(2) & (0x7800 | FLAG_RD)) | rcode, 2);
  return out;
}

type Section = { answers: Answer[]; authorities: Answer[]; rcode: number; aa: boolean };

function soaRecord(ctx: ZoneContext, name: string, ttl: number): Answer {
  return { name, type: 'SOA', class: 'IN', ttl, data: { ...ctx.soa } };
}

function apexSection(ctx: ZoneContext, name: string, qtype: number): Section {
  const answers: Answer[] = [];
  if (qtype === TYPE_SOA || qtype === TYPE_ANY) answers.push(soaRecord(ctx, name, ctx.ttl));
  if (qtype === TYPE_NS || qtype === TYPE_ANY) {
    for (const ns of ctx.ns) answers.push({ name, type: 'NS', class: 'IN', ttl: ctx.ttl, data: ns });
  }
  const authorities = answers.length === 0 ? [soaRecord(ctx, name, ctx.soa.minimum)] : [];
  return { answers, authorities, rcode: RCODE_NOERROR, aa: true };
}

function nxdomainSection(ctx: ZoneContext, zoneName: string): Section {
  return {
    answers: [],
    authorities: [soaRecord(ctx, zoneName, ctx.soa.minimum)],
    rcode: RCODE_NXDOMAIN,
    aa: true,
  };
}

function refusedSection(): Section {
  return { answers: [], authorities: [], rcode: RCODE_REFUSED, aa: false };
}

function listingSection(
  ctx: ZoneContext,
  name: string,
  zoneName: string,
  qtype: number,
  target: QueryTarget & { kind: 'ipv4' | 'ipv6' },
): Section {
  const listing: StoredListing | undefined =
    target.kind === 'ipv4' ? findIpv4(ctx, target.int) : findIpv6(ctx, target.hex);
  if (!listing) return nxdomainSection(ctx, zoneName);
  const answers: Answer[] = [];
  if (qtype === TYPE_A || qtype === TYPE_ANY) {
    answers.push({ name, type: 'A', class: 'IN', ttl: ctx.ttl, data: listing.returnCode });
  }
  if (qtype === TYPE_TXT || qtype === TYPE_ANY) {
    const text = txtText(listing.reason, ctx.lookupUrl(targetIp(target)));
    answers.push({ name, type: 'TXT', class: 'IN', ttl: ctx.ttl, data: txtChunks(text) });
  }
  const authorities = answers.length === 0 ? [soaRecord(ctx, zoneName, ctx.soa.minimum)] : [];
  return { answers, authorities, rcode: RCODE_NOERROR, aa: true };
}

/** The answer and authority sections for the question, by where its name points. */
function questionSection(ctx: ZoneContext, wire: WireQuestion): Section {
  if (wire.qclass !== CLASS_IN && wire.qclass !== CLASS_ANY) return refusedSection();
  const lower = wire.labels.map((l) => l.toLowerCase());
  const target = classifyLabels(lower, ctx.zone.split('.'));
  const name = wire.labels.join('.');
  const zoneName = wire.labels.slice(wire.labels.length - ctx.zoneLabelCount).join('.');
  if (target.kind === 'outside') return refusedSection();
  if (target.kind === 'apex') return apexSection(ctx, name, wire.qtype);
  if (target.kind === 'none') return nxdomainSection(ctx, zoneName);
  return listingSection(ctx, name, zoneName, wire.qtype, target);
}

interface DecodedQuery {
  packet: Packet;
  wire: WireQuestion;
  /** The OPT record, when the query has one. */
  opt: Answer | undefined;
}

/**
 * Whether the header's counts fit the message: one question (5 bytes at least) and records of
 * 11 bytes at least. dns-packet makes an array of each count before it reads a record, so a
 * 12-byte query claiming 65,535 of each cost 2 MB of arrays before it failed; such a message
 * gets the FORMERR it got then, without them.
 */
function countsFit(q: Buffer): boolean {
  if (q.readUInt16BE(4) !== 1) return false;
  const records = q.readUInt16BE(6) + q.readUInt16BE(8) + q.readUInt16BE(10);
  return 12 + 5 + 11 * records <= q.length;
}

/** The query decoded, or the header-only reply its faults call for (NOTIMP, FORMERR). */
function decodeQuery(q: Buffer): DecodedQuery | Buffer {
  if ((((q[2] as number) >> 3) & 0xf) !== 0) return headerReply(q, RCODE_NOTIMP);
  if (!countsFit(q)) return headerReply(q, RCODE_FORMERR);
  let packet: Packet;
  try {
    packet = dnsPacket.decode(q);
  } catch {
    return headerReply(q, RCODE_FORMERR);
  }
  const wire = readQuestion(q);
  if (packet.questions?.length !== 1 || !wire) return headerReply(q, RCODE_FORMERR);
  const opts = (packet.additionals ?? []).filter((a) => a.type === 'OPT');
  if (opts.length > 1) return headerReply(q, RCODE_FORMERR); // RFC 6891 §6.1.1
  return { packet, wire, opt: opts[0] };
}

/** Our OPT record (RFC 6891 §6.1.2), carrying the upper bits of an extended rcode. */
function optRecord(extendedRcode: number): Answer {
  return {
    name: '.',
    type: 'OPT',
    udpPayloadSize: EDNS_UDP_MAX,
    extendedRcode,
    ednsVersion: 0,
    flags: 0,
    flag_do: false,
    options: [],
  };
}

/** The requestor's UDP payload size (RFC 6891 §6.2.3), or null without EDNS. */
function ednsSizeOf(opt: Answer | undefined): number | null {
  return opt && 'udpPayloadSize' in opt ? (opt.udpPayloadSize ?? UDP_CLASSIC_MAX) : null;
}

/** The query's EDNS version; 0 without EDNS (only version 0 is answered, RFC 6891 §6.1.3). */
function ednsVersionOf(opt: Answer | undefined): number | undefined {
  return opt !== undefined && 'ednsVersion' in opt ? opt.ednsVersion : 0;
}

/** Answer bytes for any message, or null when it must not be answered (too short, a response). */
export function answerGeneral(q: Buffer, ctx: ZoneContext, tcp: boolean): Buffer | null {
  // Fewer than 12 bytes carry no id to answer to; answering responses invites reflection loops.
  if (q.length < 12 || ((q[2] as number) & 0x80) !== 0) return null;
  const decoded = decodeQuery(q);
  if (Buffer.isBuffer(decoded)) return decoded;
  const { packet, wire, opt } = decoded;
  const badVersion = ednsVersionOf(opt) !== 0;
  const section: Section = badVersion
    ? { answers: [], authorities: [], rcode: 0, aa: false }
    : questionSection(ctx, wire);
  const flags = (section.aa ? FLAG_AA : 0) | ((packet.flags ?? 0) & (FLAG_RD | FLAG_CD)) | section.rcode;
  const response: Packet = {
    id: packet.id ?? 0,
    type: 'response',
    flags,
    questions: [packet.questions?.[0] as NonNullable<Packet['questions']>[number]],
    answers: section.answers,
    authorities: section.authorities,
    additionals: opt ? [optRecord(badVersion ? RCODE_BADVERS >> 4 : 0)] : [],
  };
  const out = dnsPacket.encode(response);
  const limit = tcp ? 65535 : udpLimit(ednsSizeOf(opt));
  if (out.length <= limit) return out;
  // RFC 2181 §9: too big for UDP, send the question with TC set; the client retries over TCP.
  return dnsPacket.encode({ ...response, flags: flags | FLAG_TC, answers: [], authorities: [] });
}
