/** rpki-client JSON output: `{metadata:{buildtime}, roas:[{asn, prefix, maxLength, ta, expires}]}`. */
import { parseCidrRange } from './addr.ts';
import { arrayField, isRecord, parseJsonDocument } from './cidr-rows.ts';
import type { AddrRange, ParseResult, RejectedLine, TextInput } from './types.ts';

export interface RoaRow extends AddrRange {
  prefixLength: number;
  maxLength: number;
  asn: number;
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
    if (!r) rejected.push({ line: i + 1, text, reason: 'invalid prefix' });
    else if (typeof asn !== 'number' || !Number.isInteger(asn) || asn < 0 || asn > 4294967295)
      rejected.push({ line: i + 1, text, reason: 'invalid ASN' });
    else if (
      typeof maxLength !== 'number' ||
      maxLength < r.prefixLength ||
      maxLength > (r.family === 4 ? 32 : 128)
    )
      rejected.push({ line: i + 1, text, reason: 'invalid maxLength' });
    else {
      const key = `${r.family}:${r.start}:${r.prefixLength}:${maxLength}:${asn}`;
      if (seen.has(key)) return;
      seen.add(key);
      rows.push({ ...r, maxLength, asn });
    }
  });
  const meta = isRecord(doc) && isRecord(doc['metadata']) ? doc['metadata'] : null;
  return {
    rows,
    rejected,
    buildTime: meta && typeof meta['buildtime'] === 'string' ? meta['buildtime'] : null,
  };
}
