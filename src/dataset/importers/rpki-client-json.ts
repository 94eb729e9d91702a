/** rpki-client JSON output: `{metadata:{buildtime}, roas:[{asn, prefix, maxLength, ta, expires}]}`. */
import { parseCidrRange } from './addr.ts';
import { arrayField, isRecord, parseJsonDocument } from './cidr-rows.ts';
import type { AddrRange, ParseResult, RejectedLine, TextInput } from './types.ts';

export interface RoaRow extends AddrRange {
  prefixLength: number;
  maxLength: number;
  asn: number;
}

/** Why a ROA's fields are refused (prefix, then ASN, then maxLength), or null when they hold. */
function roaProblem(
  r: (AddrRange & { prefixLength: number }) | null,
  asn: unknown,
  maxLength: unknown,
): string | null {
  if (!r) return 'invalid prefix';
  if (typeof asn !== 'number' || !Number.isInteger(asn) || asn < 0 || asn > 4294967295) return 'invalid ASN';
  if (typeof maxLength !== 'number' || maxLength < r.prefixLength || maxLength > (r.family === 4 ? 32 : 128))
    return 'invalid maxLength';
  return null;
}

export function parseRpkiClientJson(input: TextInput): ParseResult<RoaRow> & { buildTime: string | null } {
  const doc = parseJsonDocument(input, 'rpki-client JSON');
  const rows: RoaRow[] = [];
  const rejected: RejectedLine[] = [];
  const seen = new Set<string>();
  arrayField(doc, 'roas', 'rpki-client JSON').forEach((roa, i) => {
    const text = JSON.stringify(roa) ?? '';
    if (!isRecord(roa)) {
      rejected.push({ line: i + 1, text, reason: 'ROA is not an object' });
      return;
    }
    const r = typeof roa['prefix'] === 'string' ? parseCidrRange(roa['prefix'], true) : null;
    const asnRaw = roa['asn'];
    const asn = typeof asnRaw === 'string' ? Number(asnRaw.replace(/^AS/i, '')) : asnRaw;
    const maxLength = roa['maxLength'];
    const problem = roaProblem(r, asn, maxLength);
    if (problem || !r) {
      rejected.push({ line: i + 1, text, reason: problem ?? 'invalid prefix' });
      return;
    }
    const key = `${r.family}:${r.start}:${r.prefixLength}:${maxLength}:${asn}`;
    if (seen.has(key)) return;
    seen.add(key);
    rows.push({ ...r, maxLength: maxLength as number, asn: asn as number });
  });
  const meta = isRecord(doc) && isRecord(doc['metadata']) ? doc['metadata'] : null;
  return {
    rows,
    rejected,
    buildTime: meta && typeof meta['buildtime'] === 'string' ? meta['buildtime'] : null,
  };
}
