/** ASN lists such as X4BNet input/datacenter/ASN.txt: `ASnnnn # comment` per line. */
import { decodeText, splitLines } from './addr.ts';
import type { ParseResult, RejectedLine, TextInput } from './types.ts';

export interface AsnListRow {
  asn: number;
  comment: string | null;
}

export function parseAsnList(input: TextInput): ParseResult<AsnListRow> {
  const rows: AsnListRow[] = [];
  const rejected: RejectedLine[] = [];
  const seen = new Set<number>();
  const lines = splitLines(decodeText(input));
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(?:AS)?(\d{1,10})\s*(?:#\s*(.*))?$/i.exec(line);
    const asn = m ? Number(m[1]) : Number.NaN;
    if (!m || asn < 1 || asn > 4294967295) {
      rejected.push({ line: i + 1, text: line, reason: 'invalid ASN' });
      continue;
    }
    if (seen.has(asn)) {
      rejected.push({ line: i + 1, text: line, reason: 'duplicate ASN' });
      continue;
    }
    seen.add(asn);
    rows.push({ asn, comment: m[2]?.trim() || null });
  }
  return { rows, rejected };
}
