/**
 * Zone export for real DNS servers (CONTRACT §5): rbldnsd (one `combined` data file holding an
 * ip4set and an ip6trie) or a BIND master file. Both carry the RFC 5782 §5 test entries and the
 * same A and TXT answers the built-in server gives.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { parseIp } from '../core/ip.ts';
import { nibbles } from './query-name.ts';
import type { DnsblListing, SoaSettings } from './types.ts';
import { TEST_ENTRY_REASON, txtText } from './wire.ts';
import { createZoneContext } from './zone-context.ts';

export type ZoneExportFormat = 'rbldnsd' | 'bind';

export interface ZoneExportOptions {
  format: ZoneExportFormat;
  zone: string;
  lookupUrl: (ip: string) => string;
  ns?: string[];
  soa?: Partial<SoaSettings>;
  /** TTL of the records, seconds (default 60, as the built-in server). */
  ttl?: number;
  /** Epoch ms; the default SOA serial is derived from it. */
  now: number;
}

export interface ZoneExportSummary {
  /** Listings written, test entries not counted. */
  listings: number;
  /** Input rows skipped: not an IP address, or the RFC 5782 test addresses. */
  skipped: number;
  bytes: number;
}

const TEST_V4 = '127.0.0.2';
const TEST_V4_UNLISTED = '127.0.0.1';
const TEST_V6 = '::ffff:7f00:2';
const CHUNK = 64 * 1024;

/** Control characters would end a line of either file format. */
function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ');
}

/** rbldnsd TXT template: `$` starts a substitution, `$$` is a literal dollar. */
function rbldnsdText(text: string): string {
  return oneLine(text).replace(/\$/g, '$$$$');
}

/** RFC 1035 §5.1 quoted character-strings, each at most 255 bytes. */
function bindTxt(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  const parts: string[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 255) {
    let s = '';
    for (const b of bytes.subarray(i, i + 255)) {
      if (b === 0x22 || b === 0x5c) s += `\\${String.fromCharCode(b)}`;
      else if (b < 0x20 || b > 0x7e) s += `\\${b.toString().padStart(3, '0')}`;
      else s += String.fromCharCode(b);
    }
    parts.push(`"${s}"`);
    if (bytes.length === 0) break;
  }
  return parts.join(' ');
}

function fullIpv6(bytes: readonly number[]): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16));
  return groups.join(':');
}

interface Row {
  family: 4 | 6;
  bytes: number[];
  address: string;
  returnCode: string;
  reason: string;
}

async function* rows(
  listings: Iterable<DnsblListing> | AsyncIterable<DnsblListing>,
  summary: ZoneExportSummary,
) {
  for await (const l of listings) {
    const ip = parseIp(l.ip);
    if (!ip || ip.address === TEST_V4 || ip.address === TEST_V4_UNLISTED) {
      summary.skipped++;
      continue;
    }
    summary.listings++;
    yield {
      family: ip.family,
      bytes: ip.bytes,
      address: ip.address,
      returnCode: l.returnCode,
      reason: l.reason,
    };
  }
}

/**
 * The zone as text chunks. rbldnsd needs the IPv4 and IPv6 sections apart, so IPv6 rows are held
 * back until the IPv4 ones are written (listings are overwhelmingly IPv4).
 */
export async function* exportZone(
  listings: Iterable<DnsblListing> | AsyncIterable<DnsblListing>,
  options: ZoneExportOptions,
  summary: ZoneExportSummary = { listings: 0, skipped: 0, bytes: 0 },
): AsyncGenerator<string> {
  const ctx = createZoneContext({ ...options, index: { get: () => undefined, size: 0 } });
  const { soa, ttl, zone } = ctx;
  const bind = options.format === 'bind';
  const v6: Row[] = [];
  const test = (ip: string): Row => {
    const parsed = parseIp(ip);
    if (!parsed) throw new Error(`bad test entry ${ip}`);
    return { ...parsed, returnCode: TEST_V4, reason: TEST_ENTRY_REASON };
  };
  const v4Line = (r: Row) =>
    bind
      ? `${r.bytes.slice().reverse().join('.')}\tIN\tA\t${r.returnCode}\n` +
        `${r.bytes.slice().reverse().join('.')}\tIN\tTXT\t${bindTxt(txtText(r.reason, options.lookupUrl(r.address)))}\n`
      : `${r.address} :${r.returnCode}:${rbldnsdText(txtText(r.reason, options.lookupUrl(r.address)))}\n`;
  const v6Line = (r: Row) => {
    const name = nibbles(r.bytes).reverse().join('.');
    // A test entry in IPv6 form still links to the IPv4 lookup, as the server does.
    const url = options.lookupUrl(r.address);
    return bind
      ? `${name}\tIN\tA\t${r.returnCode}\n${name}\tIN\tTXT\t${bindTxt(txtText(r.reason, url))}\n`
      : `${fullIpv6(r.bytes)}/128 :${r.returnCode}:${rbldnsdText(txtText(r.reason, url))}\n`;
  };

  let buf = bind
    ? `$ORIGIN ${zone}.\n$TTL ${ttl}\n` +
      `@\tIN\tSOA\t${soa.mname}. ${soa.rname}. ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}\n` +
      ctx.ns.map((n) => `@\tIN\tNS\t${n}.\n`).join('')
    : `# rbldnsd combined dataset for ${zone}: rbldnsd -b ADDR/PORT ${zone}:combined:FILE\n` +
      `$SOA ${ttl} ${soa.mname} ${soa.rname} ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}\n` +
      `$NS ${ttl} ${ctx.ns.join(' ')}\n$TTL ${ttl}\n$DATASET ip4set:listings @\n`;
  buf += v4Line(test(TEST_V4));
  for await (const r of rows(listings, summary)) {
    if (r.family === 6) {
      v6.push(r);
      continue;
    }
    buf += v4Line(r);
    if (buf.length >= CHUNK) {
      yield buf;
      buf = '';
    }
  }
  if (!bind) buf += `$DATASET ip6trie:listings6 @\n`;
  const v6Test = {
    ...test(TEST_V6),
    family: 6 as const,
    bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 127, 0, 0, 2],
  };
  buf += v6Line(v6Test);
  for (const r of v6) {
    buf += v6Line(r);
    if (buf.length >= CHUNK) {
      yield buf;
      buf = '';
    }
  }
  if (buf.length > 0) yield buf;
}

/** Writes the zone to a stream, honouring backpressure; resolves once everything is handed over. */
export async function writeZoneExport(
  listings: Iterable<DnsblListing> | AsyncIterable<DnsblListing>,
  options: ZoneExportOptions,
  out: Writable,
): Promise<ZoneExportSummary> {
  const summary: ZoneExportSummary = { listings: 0, skipped: 0, bytes: 0 };
  for await (const chunk of exportZone(listings, options, summary)) {
    summary.bytes += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
  }
  return summary;
}
