/**
 * rbldnsd ip4set zones (UCEPROTECT dnsbl-1/-2, backscatterer): `#` comments, `$SOA`/`$NS`/`$TTL`
 * directives, `:127.0.0.2:text` default, `!addr` exclusions, then `addr[/len] [text]` entries.
 * UCEPROTECT files are Latin-1, so bytes are decoded as Latin-1.
 */
import { decodeText, parseCidrRange, splitLines } from './addr.ts';
import type { AddrRange, ParseResult, RejectedLine, TextInput } from './types.ts';

export interface ZoneEntry extends AddrRange {
  prefixLength: number;
  text: string | null;
}

export interface Ip4SetZone extends ParseResult<ZoneEntry> {
  /** `!` lines: addresses carved out of listed ranges. */
  exclusions: ZoneEntry[];
  soaSerial: number | null;
}

// rbldnsd test records (127.0.0.2 and friends, RFC 5782 §5) are not real listings.
function isTestRecord(r: AddrRange): boolean {
  return r.family === 4 && r.start >= 0x7f000000n && r.end <= 0x7fffffffn;
}

/** A line that carries no entry: blank, a comment or the `:127.0.0.2:text` default. */
function isQuiet(line: string): boolean {
  return line === '' || line.startsWith('#') || line.startsWith(':');
}

/** The serial of a `$SOA` directive; null for any other directive. */
function soaSerialOf(line: string): number | null {
  const soa = /^\$SOA\s+\S+\s+\S+\s+\S+\s+(\d+)/.exec(line);
  return soa ? Number(soa[1]) : null;
}

/** An entry line (`[!]addr[/len] [text]`) as its entry and whether it is a `!` exclusion; null when the address is bad. */
function readEntry(line: string): { entry: ZoneEntry; exclude: boolean } | null {
  const exclude = line.startsWith('!');
  const body = exclude ? line.slice(1) : line;
  const sp = body.search(/\s/);
  const r = parseCidrRange(sp === -1 ? body : body.slice(0, sp));
  if (!r) return null;
  return { entry: { ...r, text: sp === -1 ? null : body.slice(sp).trim() || null }, exclude };
}

export function parseIp4SetZone(input: TextInput): Ip4SetZone {
  const rows: ZoneEntry[] = [];
  const exclusions: ZoneEntry[] = [];
  const rejected: RejectedLine[] = [];
  const seen = new Set<string>();
  let soaSerial: number | null = null;
  const lines = splitLines(decodeText(input, 'latin1'));
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (isQuiet(line)) continue;
    if (line.startsWith('$')) {
      soaSerial = soaSerialOf(line) ?? soaSerial;
      continue;
    }
    const read = readEntry(line);
    if (!read) {
      rejected.push({ line: i + 1, text: line, reason: 'invalid address or CIDR' });
      continue;
    }
    const { entry } = read;
    if (read.exclude) {
      exclusions.push(entry);
      continue;
    }
    if (isTestRecord(entry)) continue;
    const key = `${entry.start}:${entry.end}`;
    if (seen.has(key)) rejected.push({ line: i + 1, text: line, reason: 'duplicate entry' });
    else {
      seen.add(key);
      rows.push(entry);
    }
  }
  return { rows, rejected, exclusions, soaSerial };
}
