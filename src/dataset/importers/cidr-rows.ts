/** Turns CIDR strings pulled out of a JSON document into rows, rejecting bad ones with reasons. */
import { decodeText, parseCidrRange } from './addr.ts';
import type { AddrRange, ParseResult, RejectedLine, TextInput } from './types.ts';

export interface TaggedRange extends AddrRange {
  prefixLength: number;
  /** Free-form labels from the source (service, region, tag). */
  service: string | null;
  region: string | null;
}

export interface CidrEntry {
  cidr: unknown;
  service?: unknown;
  region?: unknown;
}

function optString(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** Duplicates of the same CIDR (AWS lists one per service) are merged, keeping the first labels. */
export function rowsFromCidrs(entries: CidrEntry[]): ParseResult<TaggedRange> {
  const rows: TaggedRange[] = [];
  const rejected: RejectedLine[] = [];
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    if (typeof e.cidr !== 'string') {
      rejected.push({ line: i + 1, text: JSON.stringify(e.cidr) ?? '', reason: 'prefix is not a string' });
      return;
    }
    const r = parseCidrRange(e.cidr.trim());
    if (!r) {
      rejected.push({ line: i + 1, text: e.cidr, reason: 'invalid CIDR' });
      return;
    }
    const key = `${r.family}:${r.start}:${r.end}`;
    if (seen.has(key)) return;
    seen.add(key);
    rows.push({ ...r, service: optString(e.service), region: optString(e.region) });
  });
  return { rows, rejected };
}

export class ImportFormatError extends Error {
  override name = 'ImportFormatError';
}

/** JSON.parse with a format error naming the source instead of a bare SyntaxError. */
export function parseJsonDocument(input: TextInput, what: string): unknown {
  try {
    return JSON.parse(decodeText(input));
  } catch (err) {
    throw new ImportFormatError(`${what}: not valid JSON (${(err as Error).message})`);
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function arrayField(doc: unknown, key: string, what: string): unknown[] {
  if (!isRecord(doc) || !Array.isArray(doc[key]))
    throw new ImportFormatError(`${what}: missing array "${key}"`);
  return doc[key] as unknown[];
}
