/**
 * CAIDA AS Classification (`YYYYMMDD.as2types.txt`, gzip upstream): `as|source|type` per line,
 * `#` comment lines at the top of upstream files. `source` says how the class was found:
 * `CAIDA_class` (CAIDA's classifier), `peerDB_class` (the network's own PeeringDB info_type) or
 * `manual_class`; `type` is one of Transit/Access, Content, Enterprise.
 */
import { decodeText, splitLines } from './addr.ts';
import type { ParseResult, RejectedLine, TextInput } from './types.ts';

export type AsClass = 'transit_access' | 'content' | 'enterprise';
export type AsClassBasis = 'caida' | 'peeringdb' | 'manual';

export interface AsClassRow {
  asn: number;
  class: AsClass;
  basis: AsClassBasis;
}

const CLASSES: Record<string, AsClass> = {
  'transit/access': 'transit_access',
  content: 'content',
  enterprise: 'enterprise',
};
const BASES: Record<string, AsClassBasis> = {
  caida_class: 'caida',
  peerdb_class: 'peeringdb',
  manual_class: 'manual',
};

export function parseCaidaAsClass(input: TextInput): ParseResult<AsClassRow> {
  const rows: AsClassRow[] = [];
  const rejected: RejectedLine[] = [];
  const seen = new Set<number>();
  const lines = splitLines(decodeText(input));
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const text = raw.trim();
    if (text === '' || text.startsWith('#')) continue;
    const [asText = '', sourceText = '', typeText = '', ...rest] = text.split('|');
    const asn = /^\d{1,10}$/.test(asText) ? Number(asText) : Number.NaN;
    const cls = CLASSES[typeText.trim().toLowerCase()];
    const basis = BASES[sourceText.trim().toLowerCase()];
    if (rest.length > 0 || !(asn >= 1 && asn <= 4294967295)) {
      rejected.push({ line: i + 1, text: raw, reason: 'not `as|source|type`' });
      continue;
    }
    if (!cls || !basis) {
      rejected.push({ line: i + 1, text: raw, reason: 'unknown class or source' });
      continue;
    }
    if (seen.has(asn)) {
      rejected.push({ line: i + 1, text: raw, reason: 'duplicate ASN' });
      continue;
    }
    seen.add(asn);
    rows.push({ asn, class: cls, basis });
  }
  return { rows, rejected };
}
