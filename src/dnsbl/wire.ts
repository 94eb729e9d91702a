/** DNS wire constants and the few encoders both answer paths share (RFC 1035 §4). */
import type { SoaSettings } from './types.ts';

export const TYPE_A = 1;
export const TYPE_NS = 2;
export const TYPE_SOA = 6;
export const TYPE_TXT = 16;
export const TYPE_OPT = 41;
export const TYPE_ANY = 255;
export const CLASS_IN = 1;
export const CLASS_ANY = 255;

export const RCODE_NOERROR = 0;
export const RCODE_FORMERR = 1;
export const RCODE_NXDOMAIN = 3;
export const RCODE_NOTIMP = 4;
export const RCODE_REFUSED = 5;
/** RFC 6891 §6.1.3: extended rcode 16, carried as 1 in the OPT upper bits. */
export const RCODE_BADVERS = 16;

export const FLAG_QR = 0x8000;
export const FLAG_AA = 0x0400;
export const FLAG_TC = 0x0200;
export const FLAG_RD = 0x0100;
export const FLAG_CD = 0x0010;

/** Largest UDP answer without EDNS (RFC 1035 §4.2.1). */
export const UDP_CLASSIC_MAX = 512;
/** Our advertised EDNS UDP payload size: the DNS Flag Day 2020 value, avoids IP fragmentation. */
export const EDNS_UDP_MAX = 1232;

/** The RFC 5782 §5 test entries: 127.0.0.2 always listed, 127.0.0.1 never. */
export const TEST_LISTED_IPV4 = 0x7f000002;
export const TEST_UNLISTED_IPV4 = 0x7f000001;
/**
 * The reason text of the test entries, the blocklist's TEST_ENTRY_REASON (the HTTP checks'): written
 * out, not imported, so the DNS thread does not load the blocklist and its store drivers (seconds
 * of start-up); dns-thread.test.ts checks the two agree.
 */
export const TEST_ENTRY_REASON = 'RFC 5782 test entry';

/** UDP payload limit for a query: 512 without EDNS, else the requestor's size capped by ours. */
export function udpLimit(ednsSize: number | null): number {
  if (ednsSize === null) return UDP_CLASSIC_MAX;
  return Math.min(Math.max(ednsSize, UDP_CLASSIC_MAX), EDNS_UDP_MAX);
}

/** Uncompressed wire form of an absolute name (no trailing dot). */
export function encodeName(name: string): Buffer {
  const labels = name.length === 0 ? [] : name.split('.');
  const parts: Buffer[] = [];
  for (const label of labels) {
    const bytes = Buffer.from(label, 'ascii');
    if (bytes.length === 0 || bytes.length > 63)
      throw new Error(`invalid DNS label in ${JSON.stringify(name)}`);
    parts.push(Buffer.from([bytes.length]), bytes);
  }
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}

/** SOA rdata (RFC 1035 §3.3.13). */
export function encodeSoaRdata(soa: SoaSettings): Buffer {
  const tail = Buffer.alloc(20);
  tail.writeUInt32BE(soa.serial >>> 0, 0);
  tail.writeUInt32BE(soa.refresh, 4);
  tail.writeUInt32BE(soa.retry, 8);
  tail.writeUInt32BE(soa.expire, 12);
  tail.writeUInt32BE(soa.minimum, 16);
  return Buffer.concat([encodeName(soa.mname), encodeName(soa.rname), tail]);
}

/** The TXT text of a listing: its reason, then where to read more. */
export function txtText(reason: string, url: string): string {
  return reason.length > 0 ? `${reason}; ${url}` : url;
}

/** TXT character-strings (RFC 1035 §3.3.14): at most 255 bytes each. */
export function txtChunks(text: string): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 255) chunks.push(bytes.subarray(i, i + 255));
  if (chunks.length === 0) chunks.push(Buffer.alloc(0));
  return chunks;
}

/** TXT rdata: each chunk prefixed by its length. */
export function encodeTxtRdata(text: string): Buffer {
  const parts: Buffer[] = [];
  for (const c of txtChunks(text)) parts.push(Buffer.from([c.length]), c);
  return Buffer.concat(parts);
}
