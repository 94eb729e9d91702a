/**
 * ip-location-db CSV (https://github.com/sapics/ip-location-db): `start,end,asn,org` for the
 * ASN files and `start,end,country` for the country files. No header. Org names may be quoted
 * with RFC 4180 doubling. Rows may overlap; the build lets the narrowest win.
 */
import { decodeText, parseAddr } from './addr.ts';
import type { AddrRange, ParseResult, RejectedLine, TextInput } from './types.ts';

export interface AsnRangeRow extends AddrRange {
  asn: number;
  org: string;
}

export interface CountryRangeRow extends AddrRange {
  country: string;
}

const COUNTRY = /^[A-Z]{2}$/;

/**
 * The quoted field whose opening quote is at line[at]: its value (RFC 4180: `""` is one quote)
 * and the index after its closing quote; null when the quote is never closed.
 */
function readQuoted(line: string, at: number): { value: string; end: number } | null {
  let value = '';
  let i = at + 1;
  for (;;) {
    const q = line.indexOf('"', i);
    if (q === -1) return null;
    value += line.slice(i, q);
    if (line[q + 1] !== '"') return { value, end: q + 1 };
    value += '"';
    i = q + 2;
  }
}

/** Splits one CSV line with optional RFC 4180 quoting; null when quotes are unbalanced. */
export function splitCsvLine(line: string): string[] | null {
  if (!line.includes('"')) return line.split(',');
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      const field = readQuoted(line, i);
      // A closing quote ends the field: only a comma or the end of the line may follow it.
      if (!field || (field.end < line.length && line[field.end] !== ',')) return null;
      out.push(field.value);
      i = field.end + 1;
    } else {
      const comma = line.indexOf(',', i);
      const end = comma === -1 ? line.length : comma;
      out.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

function parseRangeFields(
  startText: string,
  endText: string,
): { range: AddrRange; error: null } | { range: null; error: string } {
  const start = parseAddr(startText.trim());
  const end = parseAddr(endText.trim());
  if (!start || !end) return { range: null, error: 'invalid address' };
  if (start.family !== end.family) return { range: null, error: 'start and end differ in family' };
  if (start.value > end.value) return { range: null, error: 'start after end' };
  return { range: { family: start.family, start: start.value, end: end.value }, error: null };
}

function eachLine(input: TextInput, fn: (line: string, lineNo: number) => void): void {
  const text = decodeText(input);
  let pos = 0;
  let lineNo = 0;
  while (pos < text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl === -1) nl = text.length;
    let line = text.slice(pos, nl);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    lineNo++;
    pos = nl + 1;
    if (line.trim() === '' || line.startsWith('#')) continue;
    fn(line, lineNo);
  }
}

/**
 * Exact repeats of a range keep the first row; later ones are rejected. The upstream files are
 * sorted by start, so only the ends seen at the current start are remembered; the first row out
 * of order switches to remembering every range kept so far.
 */
class DuplicateFilter {
  private start = -1n;
  private ends = new Set<bigint>();
  private all: Set<string> | null = null;

  constructor(private readonly kept: readonly AddrRange[]) {}

  isDuplicate(range: AddrRange, line: string, lineNo: number, rejected: RejectedLine[]): boolean {
    let dup: boolean;
    if (this.all === null && range.start < this.start) {
      this.all = new Set(this.kept.map((r) => `${r.family}:${r.start}:${r.end}`));
    }
    if (this.all) {
      const key = `${range.family}:${range.start}:${range.end}`;
      dup = this.all.has(key);
      if (!dup) this.all.add(key);
    } else {
      if (range.start !== this.start) {
        this.start = range.start;
        this.ends.clear();
      }
      dup = this.ends.has(range.end);
      if (!dup) this.ends.add(range.end);
    }
    if (dup) rejected.push({ line: lineNo, text: line, reason: 'duplicate range' });
    return dup;
  }
}

/** What one range CSV read keeps and refuses: the steps both CSV shapes share. */
class RangeRows<T extends AddrRange> {
  readonly rows: T[] = [];
  readonly rejected: RejectedLine[] = [];
  private readonly dupes = new DuplicateFilter(this.rows);

  refuse(lineNo: number, line: string, reason: string): void {
    this.rejected.push({ line: lineNo, text: line, reason });
  }

  /** The `start,end` fields as a range, or null with the line refused. */
  range(f: string[], lineNo: number, line: string): AddrRange | null {
    const r = parseRangeFields(f[0] as string, f[1] as string);
    if (!r.range) this.refuse(lineNo, line, r.error);
    return r.range;
  }

  /** Keeps `row` unless its range was kept already (then the line is refused). */
  keep(row: T, lineNo: number, line: string): void {
    if (!this.dupes.isDuplicate(row, line, lineNo, this.rejected)) this.rows.push(row);
  }
}

/** `start,end,asn,org` rows. */
export function parseAsnCsv(input: TextInput): ParseResult<AsnRangeRow> {
  const out = new RangeRows<AsnRangeRow>();
  eachLine(input, (line, lineNo) => {
    const f = splitCsvLine(line);
    if (f?.length !== 4) {
      out.refuse(lineNo, line, f ? `expected 4 fields, got ${f.length}` : 'bad quoting');
      return;
    }
    const range = out.range(f, lineNo, line);
    if (!range) return;
    const asnText = (f[2] as string).trim();
    const asn = Number(asnText);
    if (!/^\d{1,10}$/.test(asnText) || asn > 4294967295) {
      out.refuse(lineNo, line, 'invalid ASN');
      return;
    }
    out.keep({ ...range, asn, org: (f[3] as string).trim() }, lineNo, line);
  });
  return { rows: out.rows, rejected: out.rejected };
}

/** `start,end,country` rows (ISO 3166-1 alpha-2). */
export function parseCountryCsv(input: TextInput): ParseResult<CountryRangeRow> {
  const out = new RangeRows<CountryRangeRow>();
  eachLine(input, (line, lineNo) => {
    const f = line.split(',');
    if (f.length !== 3) {
      out.refuse(lineNo, line, `expected 3 fields, got ${f.length}`);
      return;
    }
    const range = out.range(f, lineNo, line);
    if (!range) return;
    const country = (f[2] as string).trim().toUpperCase();
    if (!COUNTRY.test(country)) {
      out.refuse(lineNo, line, 'invalid country code');
      return;
    }
    out.keep({ ...range, country }, lineNo, line);
  });
  return { rows: out.rows, rejected: out.rejected };
}
