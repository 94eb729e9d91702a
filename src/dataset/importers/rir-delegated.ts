/**
 * RIR statistics exchange format (delegated and delegated-extended), per
 * https://www.nro.net/wp-content/uploads/nro-extended-stats-readme5.txt:
 * version line, summary lines, then `registry|cc|type|start|value|date|status[|opaque-id[|ext]]`.
 * For ipv4 `value` is an address count (not always a power of two), for ipv6 a prefix length,
 * for asn a count of consecutive ASNs.
 */
import { decodeText, parseAddr, splitLines } from './addr.ts';
import type { AddrRange, ParseResult, RejectedLine, TextInput } from './types.ts';

export type Rir = 'ARIN' | 'RIPE' | 'APNIC' | 'LACNIC' | 'AFRINIC';

export interface RirRangeRow extends AddrRange {
  rir: Rir;
  country: string | null;
  /** YYYY-MM-DD, or null when the record carries none (00000000 or empty). */
  date: string | null;
  status: string;
}

export interface RirAsnRow {
  rir: Rir;
  firstAsn: number;
  count: number;
  country: string | null;
  date: string | null;
  status: string;
}

export interface RirDelegated extends ParseResult<RirRangeRow> {
  asns: RirAsnRow[];
  registry: Rir | null;
  serial: string | null;
}

const REGISTRIES: Record<string, Rir> = {
  arin: 'ARIN',
  ripencc: 'RIPE',
  ripe: 'RIPE',
  apnic: 'APNIC',
  lacnic: 'LACNIC',
  afrinic: 'AFRINIC',
};

function toDate(text: string): string | null {
  if (!/^\d{8}$/.test(text) || text === '00000000') return null;
  return `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`;
}

export function parseRirDelegated(input: TextInput): RirDelegated {
  const rows: RirRangeRow[] = [];
  const asns: RirAsnRow[] = [];
  const rejected: RejectedLine[] = [];
  let registry: Rir | null = null;
  let serial: string | null = null;
  let sawVersion = false;
  const lines = splitLines(decodeText(input));
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith('#')) continue;
    const f = line.split('|');
    if (!sawVersion && /^\d+(\.\d+)?$/.test(f[0] ?? '')) {
      sawVersion = true;
      registry = REGISTRIES[(f[1] ?? '').toLowerCase()] ?? null;
      serial = f[2] || null;
      continue;
    }
    const reason = readRecord(f, rows, asns);
    if (reason !== null) rejected.push({ line: i + 1, text: line, reason });
  }
  return { rows, rejected, asns, registry, serial };
}

/**
 * Reads one record line's fields into rows or asns; returns why it is rejected, or null when
 * it is taken or skipped (summary lines, IANA pool records).
 */
function readRecord(f: string[], rows: RirRangeRow[], asns: RirAsnRow[]): string | null {
  if (f[5] === 'summary') return null;
  if (f.length < 7) return `expected at least 7 fields, got ${f.length}`;
  const [reg = '', ccRaw = '', type = '', startText = '', valueText = '', dateText = '', status = ''] = f;
  const rir = REGISTRIES[reg.toLowerCase()];
  // IANA pool records (registry "iana") describe no RIR delegation.
  if (!rir) return reg.toLowerCase() !== 'iana' ? 'unknown registry' : null;
  const cc = countryCode(ccRaw);
  const value = Number(valueText);
  if (!/^\d+$/.test(valueText) || value < 1) return 'invalid value';
  const date = toDate(dateText);
  if (type === 'asn')
    return readAsns(startText, value, { rir, firstAsn: 0, count: value, country: cc, date, status }, asns);
  if (type !== 'ipv4' && type !== 'ipv6') return 'unknown type';
  const addr = parseAddr(startText);
  if (!addr || (type === 'ipv4') !== (addr.family === 4)) return 'invalid start address';
  const end = type === 'ipv4' ? ipv4End(addr.value, value) : ipv6End(addr.value, value);
  if (typeof end === 'string') return end;
  rows.push({ family: addr.family, start: addr.value, end, rir, country: cc, date, status });
  return null;
}

/** The two-letter country code, upper-cased; null for none or ZZ (unknown). */
function countryCode(ccRaw: string): string | null {
  return /^[A-Z]{2}$/.test(ccRaw.toUpperCase()) && ccRaw !== 'ZZ' ? ccRaw.toUpperCase() : null;
}

/** Pushes the ASN record (its first ASN read from startText), or says why it is invalid. */
function readAsns(startText: string, count: number, row: RirAsnRow, asns: RirAsnRow[]): string | null {
  const first = Number(startText);
  if (!/^\d+$/.test(startText) || first > 4294967295 || first + count - 1 > 4294967295) return 'invalid ASN';
  row.firstAsn = first;
  asns.push(row);
  return null;
}

/** The last address of `count` IPv4 addresses from start, or why there is none. */
function ipv4End(start: bigint, count: number): bigint | string {
  const end = start + BigInt(count) - 1n;
  return end > 0xffffffffn ? 'range runs past the address space' : end;
}

/** The last address of the IPv6 prefix start/length, or why it is no prefix. */
function ipv6End(start: bigint, length: number): bigint | string {
  if (length > 128) return 'invalid prefix length';
  const host = BigInt(128 - length);
  if ((start >> host) << host !== start) return 'host bits set below the prefix';
  return start + (1n << host) - 1n;
}
