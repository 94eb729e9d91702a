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
    if (f[5] === 'summary') continue;
    if (f.length < 7) {
      rejected.push({ line: i + 1, text: line, reason: `expected at least 7 fields, got ${f.length}` });
      continue;
    }
    const [reg = '', ccRaw = '', type = '', startText = '', valueText = '', dateText = '', status = ''] = f;
    const rir = REGISTRIES[reg.toLowerCase()];
    if (!rir) {
      // IANA pool records (registry "iana") describe no RIR delegation.
      if (reg.toLowerCase() !== 'iana')
        rejected.push({ line: i + 1, text: line, reason: 'unknown registry' });
      continue;
    }
    const cc = /^[A-Z]{2}$/.test(ccRaw.toUpperCase()) && ccRaw !== 'ZZ' ? ccRaw.toUpperCase() : null;
    const value = Number(valueText);
    if (!/^\d+$/.test(valueText) || value < 1) {
      rejected.push({ line: i + 1, text: line, reason: 'invalid value' });
      continue;
    }
    const date = toDate(dateText);
    if (type === 'asn') {
      const first = Number(startText);
      if (!/^\d+$/.test(startText) || first > 4294967295 || first + value - 1 > 4294967295) {
        rejected.push({ line: i + 1, text: line, reason: 'invalid ASN' });
        continue;
      }
      asns.push({ rir, firstAsn: first, count: value, country: cc, date, status });
      continue;
    }
    if (type !== 'ipv4' && type !== 'ipv6') {
      rejected.push({ line: i + 1, text: line, reason: 'unknown type' });
      continue;
    }
    const addr = parseAddr(startText);
    if (!addr || (type === 'ipv4') !== (addr.family === 4)) {
      rejected.push({ line: i + 1, text: line, reason: 'invalid start address' });
      continue;
    }
    let end: bigint;
    if (type === 'ipv4') {
      end = addr.value + BigInt(value) - 1n;
      if (end > 0xffffffffn) {
        rejected.push({ line: i + 1, text: line, reason: 'range runs past the address space' });
        continue;
      }
    } else {
      if (value > 128) {
        rejected.push({ line: i + 1, text: line, reason: 'invalid prefix length' });
        continue;
      }
      const host = BigInt(128 - value);
      if ((addr.value >> host) << host !== addr.value) {
        rejected.push({ line: i + 1, text: line, reason: 'host bits set below the prefix' });
        continue;
      }
      end = addr.value + (1n << host) - 1n;
    }
    rows.push({ family: addr.family, start: addr.value, end, rir, country: cc, date, status });
  }
  return { rows, rejected, asns, registry, serial };
}
