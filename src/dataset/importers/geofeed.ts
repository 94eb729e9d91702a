/**
 * RFC 8805 geofeeds: `prefix,alpha2code,region,city,postal_code` (comments with `#`; trailing
 * fields may be empty or missing). DigitalOcean's google.csv uses the same layout. Also the
 * Vultr/Constant JSON variant `{asn, subnets:[{ip_prefix, alpha2code, region, city, postal_code}]}`.
 */
import { decodeText, parseCidrRange, splitLines } from './addr.ts';
import { arrayField, isRecord, parseJsonDocument } from './cidr-rows.ts';
import { splitCsvLine } from './ip-location-db.ts';
import type { AddrRange, ParseResult, RejectedLine, TextInput } from './types.ts';

export interface GeofeedRow extends AddrRange {
  prefixLength: number;
  country: string | null;
  region: string | null;
  city: string | null;
  postalCode: string | null;
}

const COUNTRY = /^[A-Z]{2}$/;
// RFC 8805 §2.1.1.3: region is an ISO 3166-2 code (CC-XXX).
const REGION = /^[A-Z]{2}-[A-Z0-9]{1,3}$/;

function blank(v: string | undefined): string | null {
  const t = (v ?? '').trim();
  return t === '' ? null : t;
}

/**
 * A geofeed parse: rows with a valid location, the refused lines, and the prefixes of refused
 * lines whose prefix itself is valid (`165.245.160.0/20,None`): not a location, but still the
 * operator's publication of its own network, which provider geofeeds count as.
 */
export interface GeofeedParse extends ParseResult<GeofeedRow> {
  prefixesOnly: AddrRange[];
}

function toRow(
  fields: (string | undefined)[],
): { row: GeofeedRow; error: null } | { row: null; error: string; prefix?: AddrRange } {
  const r = parseCidrRange((fields[0] ?? '').trim());
  if (!r) return { row: null, error: 'invalid prefix' };
  const country = blank(fields[1])?.toUpperCase() ?? null;
  if (country !== null && !COUNTRY.test(country))
    return {
      row: null,
      error: 'invalid country code',
      prefix: { family: r.family, start: r.start, end: r.end },
    };
  let region = blank(fields[2])?.toUpperCase() ?? null;
  if (region !== null && !REGION.test(region)) region = null;
  return {
    row: { ...r, country, region, city: blank(fields[3]), postalCode: blank(fields[4]) },
    error: null,
  };
}

function dedupe(rows: GeofeedRow[], rejected: RejectedLine[], where: number[]): GeofeedRow[] {
  const seen = new Set<string>();
  return rows.filter((row, i) => {
    const key = `${row.family}:${row.start}:${row.end}`;
    if (!seen.has(key)) {
      seen.add(key);
      return true;
    }
    rejected.push({ line: where[i] ?? 0, text: '', reason: 'duplicate prefix' });
    return false;
  });
}

export function parseGeofeedCsv(input: TextInput): GeofeedParse {
  const prefixesOnly: AddrRange[] = [];
  const rows: GeofeedRow[] = [];
  const where: number[] = [];
  const rejected: RejectedLine[] = [];
  const lines = splitLines(decodeText(input));
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const fields = splitCsvLine(line);
    if (!fields || fields.length < 2) {
      rejected.push({ line: i + 1, text: line, reason: 'expected at least prefix and country' });
      continue;
    }
    const r = toRow(fields);
    if (!r.row) {
      rejected.push({ line: i + 1, text: line, reason: r.error });
      if (r.prefix) prefixesOnly.push(r.prefix);
    } else {
      rows.push(r.row);
      where.push(i + 1);
    }
  }
  return { rows: dedupe(rows, rejected, where), rejected, prefixesOnly };
}

export function parseVultrGeofeed(input: TextInput): GeofeedParse & { asn: number | null } {
  const doc = parseJsonDocument(input, 'Vultr geofeed');
  const prefixesOnly: AddrRange[] = [];
  const rows: GeofeedRow[] = [];
  const where: number[] = [];
  const rejected: RejectedLine[] = [];
  arrayField(doc, 'subnets', 'Vultr geofeed').forEach((s, i) => {
    if (!isRecord(s)) {
      rejected.push({ line: i + 1, text: JSON.stringify(s) ?? '', reason: 'subnet is not an object' });
      return;
    }
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const r = toRow([
      str(s['ip_prefix']),
      str(s['alpha2code']),
      str(s['region']),
      str(s['city']),
      str(s['postal_code']),
    ]);
    if (!r.row) {
      rejected.push({ line: i + 1, text: JSON.stringify(s), reason: r.error });
      if (r.prefix) prefixesOnly.push(r.prefix);
    } else {
      rows.push(r.row);
      where.push(i + 1);
    }
  });
  const asn = isRecord(doc) && typeof doc['asn'] === 'number' ? doc['asn'] : null;
  return { rows: dedupe(rows, rejected, where), rejected, asn, prefixesOnly };
}
