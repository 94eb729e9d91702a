/**
 * Plain address lists: one IP or CIDR per line (Tor torbulkexitlist, Cloudflare ips-v4/v6,
 * Akamai CIDR files with trailing TABs, DuckDuckBot, X4BNet outputs, UCEPROTECT L3 derived
 * list). `#` and `;` start comments (also after data); blank lines are skipped.
 */
import { decodeText, parseCidrRange, splitLines } from './addr.ts';
import type { AddrRange, ParseResult, RejectedLine, TextInput } from './types.ts';

export interface ListedRange extends AddrRange {
  prefixLength: number;
}

export function parsePlainList(input: TextInput): ParseResult<ListedRange> {
  const rows: ListedRange[] = [];
  const rejected: RejectedLine[] = [];
  const seen = new Set<string>();
  const lines = splitLines(decodeText(input));
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const hash = raw.search(/[#;]/);
    const text = (hash === -1 ? raw : raw.slice(0, hash)).trim();
    if (text === '') continue;
    const r = parseCidrRange(text);
    if (!r) {
      rejected.push({ line: i + 1, text: raw, reason: 'not an IP address or CIDR' });
      continue;
    }
    const key = `${r.family}:${r.start}:${r.end}`;
    if (seen.has(key)) {
      rejected.push({ line: i + 1, text: raw, reason: 'duplicate range' });
      continue;
    }
    seen.add(key);
    rows.push(r);
  }
  return { rows, rejected };
}
