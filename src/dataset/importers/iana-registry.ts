/**
 * IANA address registries as CSV: ipv4-address-space.csv (`Prefix,Designation,Date,WHOIS,RDAP,Status [1],Note`,
 * zero-padded `001/8` prefixes) and ipv6-unicast-address-assignments.csv. Notes are quoted and multi-line.
 */
import { parse } from 'csv-parse/sync';
import { decodeText, parseCidrRange } from './addr.ts';
import type { Rir } from './rir-delegated.ts';
import type { AddrRange, ParseResult, RejectedLine, TextInput } from './types.ts';

export interface IanaBlockRow extends AddrRange {
  prefixLength: number;
  designation: string;
  status: string;
  /** The RIR named by the WHOIS column (whois.arin.net → ARIN), when it names one. */
  rir: Rir | null;
  date: string | null;
}

const WHOIS_RIR: Record<string, Rir> = {
  'whois.arin.net': 'ARIN',
  'whois.ripe.net': 'RIPE',
  'whois.apnic.net': 'APNIC',
  'whois.lacnic.net': 'LACNIC',
  'whois.afrinic.net': 'AFRINIC',
};

export function parseIanaRegistry(input: TextInput): ParseResult<IanaBlockRow> {
  const rows: IanaBlockRow[] = [];
  const rejected: RejectedLine[] = [];
  let records: string[][];
  try {
    records = parse(decodeText(input), { relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (err) {
    return { rows, rejected: [{ line: 0, text: '', reason: `CSV error: ${(err as Error).message}` }] };
  }
  const header = records.shift() ?? [];
  const col = (name: string) => header.findIndex((h) => h.toLowerCase().startsWith(name));
  const [pi, di, dti, wi, si] = [col('prefix'), col('designation'), col('date'), col('whois'), col('status')];
  if (pi === -1 || di === -1) {
    return {
      rows,
      rejected: [{ line: 1, text: header.join(','), reason: 'missing Prefix/Designation header' }],
    };
  }
  records.forEach((rec, i) => {
    // IPv4 prefixes are written `001/8`: drop the zero padding before parsing.
    const prefixText = (rec[pi] ?? '')
      .trim()
      .replace(/^0*(\d+)\/(\d+)$/, (_m, a: string, b: string) => `${a}.0.0.0/${b}`);
    const r = parseCidrRange(prefixText);
    if (!r) {
      rejected.push({ line: i + 2, text: rec.join(','), reason: 'invalid prefix' });
      return;
    }
    const whois = (wi === -1 ? '' : (rec[wi] ?? '')).trim().toLowerCase();
    rows.push({
      ...r,
      designation: (rec[di] ?? '').trim(),
      status: (si === -1 ? '' : (rec[si] ?? '')).trim().toUpperCase(),
      rir: WHOIS_RIR[whois] ?? null,
      date: dti === -1 ? null : (rec[dti] ?? '').trim() || null,
    });
  });
  return { rows, rejected };
}
