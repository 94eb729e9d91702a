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

export function parseIp4SetZone(input: TextInput): Ip4SetZone {
  const rows: ZoneEntry[] = [];
  const exclusions: ZoneEntry[] = [];
  const rejected: RejectedLine[] = [];
  const seen = new Set<string>();
  let soaSerial: number | null = null;
  const lines = splitLines(decodeText(input, 'latin1'));
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith('#') || line.startsWith(':')) continue;
    if (line.startsWith('$')) {
      const soa = /^\$SOA\s+\S+\s+\S+\s+\S+\s+(\d+)/.exec(line);
      if (soa) soaSerial = Number(soa[1]);
      continue;
    }
    const exclude = line.startsWith('!');
    const body = exclude ? line.slice(1) : line;
    const sp = body.search(/\s/);
    const addrText = sp === -1 ? body : body.slice(0, sp);
    const r = parseCidrRange(addrText);
    if (!r) {
      rejected.push({ line: i + 1, text: line, reason: 'invalid address or CIDR' });
      continue;
    }
    const entry: ZoneEntry = { ...r, text: sp === -1 ? null : body.slice(sp).trim() || null };
    if (exclude) {
      exclusions.push(entry);
      continue;
    }
    if (isTestRecord(r)) continue;
    const key = `${r.start}:${r.end}`;
    if (seen.has(key)) {
      rejected.push({ line: i + 1, text: line, reason: 'duplicate entry' });
      continue;
    }
    seen.add(key);
    rows.push(entry);
  }
  return { rows, rejected, exclusions, soaSerial };
}
