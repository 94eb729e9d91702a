/**
 * Spamhaus DROP/EDROP/DROPv6 text (`CIDR ; SBLnnn`, `;` comments, `; EOF`), DROP NDJSON
 * (`{"cidr","sblid","rir"}` lines, last line `{"type":"metadata",...}`), ASN-DROP NDJSON
 * (`{"asn","rir","domain","cc","asname"}`) and ASN-DROP text (`AS123 ; CC | NAME`).
 */
import { decodeText, parseCidrRange, splitLines } from './addr.ts';
import type { AddrRange, ParseResult, RejectedLine, TextInput } from './types.ts';

export interface DropRow extends AddrRange {
  prefixLength: number;
  sblId: string | null;
}

export interface AsnDropRow {
  asn: number;
  country: string | null;
  name: string | null;
}

export interface DropMetadata {
  /** Unix seconds from the NDJSON metadata line, when present. */
  timestamp: number | null;
  /** Whether the text list ended with its `; EOF` marker (a truncated download lacks it). */
  complete: boolean;
}

export function parseDropText(input: TextInput): ParseResult<DropRow> & { metadata: DropMetadata } {
  const rows: DropRow[] = [];
  const rejected: RejectedLine[] = [];
  const seen = new Set<string>();
  let complete = false;
  const lines = splitLines(decodeText(input));
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    if (line.startsWith(';')) {
      if (/^;\s*EOF\b/.test(line)) complete = true;
      continue;
    }
    const [cidrText = '', sbl = ''] = line.split(';').map((s) => s.trim());
    const r = parseCidrRange(cidrText);
    if (!r) {
      rejected.push({ line: i + 1, text: line, reason: 'invalid CIDR' });
      continue;
    }
    const key = `${r.family}:${r.start}:${r.end}`;
    if (seen.has(key)) {
      rejected.push({ line: i + 1, text: line, reason: 'duplicate range' });
      continue;
    }
    seen.add(key);
    rows.push({ ...r, sblId: /^SBL\d+$/.test(sbl) ? sbl : null });
  }
  return { rows, rejected, metadata: { timestamp: null, complete } };
}

function ndjson(
  input: TextInput,
  onRecord: (rec: Record<string, unknown>, line: number, text: string) => void,
): { rejected: RejectedLine[]; metadata: DropMetadata } {
  const rejected: RejectedLine[] = [];
  let timestamp: number | null = null;
  let complete = false;
  const lines = splitLines(decodeText(input));
  for (let i = 0; i < lines.length; i++) {
    const text = (lines[i] as string).trim();
    if (text === '') continue;
    let rec: unknown;
    try {
      rec = JSON.parse(text);
    } catch {
      rejected.push({ line: i + 1, text, reason: 'not valid JSON' });
      continue;
    }
    if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) {
      rejected.push({ line: i + 1, text, reason: 'not a JSON object' });
      continue;
    }
    const obj = rec as Record<string, unknown>;
    if (obj['type'] === 'metadata') {
      timestamp = typeof obj['timestamp'] === 'number' ? obj['timestamp'] : null;
      complete = true;
      continue;
    }
    onRecord(obj, i + 1, text);
  }
  return { rejected, metadata: { timestamp, complete } };
}

export function parseDropJson(input: TextInput): ParseResult<DropRow> & { metadata: DropMetadata } {
  const rows: DropRow[] = [];
  const seen = new Set<string>();
  const extra: RejectedLine[] = [];
  const { rejected, metadata } = ndjson(input, (rec, line, text) => {
    const r = typeof rec['cidr'] === 'string' ? parseCidrRange(rec['cidr']) : null;
    if (!r) {
      extra.push({ line, text, reason: 'invalid CIDR' });
      return;
    }
    const key = `${r.family}:${r.start}:${r.end}`;
    if (seen.has(key)) {
      extra.push({ line, text, reason: 'duplicate range' });
      return;
    }
    seen.add(key);
    rows.push({ ...r, sblId: typeof rec['sblid'] === 'string' ? rec['sblid'] : null });
  });
  return { rows, rejected: [...rejected, ...extra], metadata };
}

function validAsn(v: unknown): number | null {
  const n = typeof v === 'string' ? Number(v.replace(/^AS/i, '')) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 4294967295 ? n : null;
}

export function parseAsnDropJson(input: TextInput): ParseResult<AsnDropRow> & { metadata: DropMetadata } {
  const rows: AsnDropRow[] = [];
  const seen = new Set<number>();
  const extra: RejectedLine[] = [];
  const { rejected, metadata } = ndjson(input, (rec, line, text) => {
    const asn = validAsn(rec['asn']);
    if (asn === null) extra.push({ line, text, reason: 'invalid ASN' });
    else if (seen.has(asn)) extra.push({ line, text, reason: 'duplicate ASN' });
    else {
      seen.add(asn);
      const cc = typeof rec['cc'] === 'string' && /^[A-Z]{2}$/.test(rec['cc']) ? rec['cc'] : null;
      rows.push({ asn, country: cc, name: typeof rec['asname'] === 'string' ? rec['asname'] : null });
    }
  });
  return { rows, rejected: [...rejected, ...extra], metadata };
}

export function parseAsnDropText(input: TextInput): ParseResult<AsnDropRow> {
  const rows: AsnDropRow[] = [];
  const rejected: RejectedLine[] = [];
  const seen = new Set<number>();
  const lines = splitLines(decodeText(input));
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith(';')) continue;
    const m = /^AS(\d+)\s*(?:;\s*([A-Z]{2})?\s*(?:\|\s*(.*))?)?$/i.exec(line);
    const asn = m ? validAsn(Number(m[1])) : null;
    if (!m || asn === null) rejected.push({ line: i + 1, text: line, reason: 'invalid ASN line' });
    else if (seen.has(asn)) rejected.push({ line: i + 1, text: line, reason: 'duplicate ASN' });
    else {
      seen.add(asn);
      rows.push({ asn, country: m[2]?.toUpperCase() ?? null, name: m[3]?.trim() || null });
    }
  }
  return { rows, rejected };
}
