import { TypeCompiler } from '@sinclair/typebox/compiler';
import { type IpFamily, parseCidr } from '../core/ip.ts';
import { type FeedRow, FeedRowSchema } from './types.ts';

/**
 * A feed row after normalization, with what encoders need precomputed.
 * Canonical order: family (IPv4 first), then network address numerically, then prefix length
 * (shorter first). `key` sorts that way as a plain string.
 */
export interface CanonicalRow {
  row: FeedRow;
  family: IpFamily;
  /** Network address without prefix, normalized (RFC 5952 for IPv6). */
  address: string;
  prefixLength: number;
  key: string;
}

const rowCheck = TypeCompiler.Compile(FeedRowSchema);

function hex2(n: number): string {
  return n < 16 ? `0${n.toString(16)}` : n.toString(16);
}

export function networkKey(family: IpFamily, bytes: readonly number[], prefixLength: number): string {
  let key = family === 4 ? '4' : '6';
  for (const b of bytes) key += hex2(b);
  return key + String(prefixLength).padStart(3, '0');
}

/**
 * Validates a row and normalizes its network through core/ip.ts parseCidr (host bits cleared;
 * a /32 or /128 is written as the bare address). Throws on a row that is not a FeedRow.
 */
export function canonicalizeRow(input: unknown): CanonicalRow {
  if (!rowCheck.Check(input)) {
    const first = rowCheck.Errors(input).First();
    const where = first ? `${first.path || '/'}: ${first.message}` : 'not an object';
    throw new TypeError(`invalid feed row (${where})`);
  }
  const parsed = parseCidr(input.network);
  if (!parsed)
    throw new TypeError(`invalid feed row: network ${JSON.stringify(input.network)} is not an IP or CIDR`);
  const max = parsed.family === 4 ? 32 : 128;
  const network = parsed.prefixLength === max ? parsed.network : parsed.cidr;
  const row: FeedRow = {
    network,
    kind: input.kind,
    source: input.source,
    first_seen: input.first_seen,
    last_seen: input.last_seen,
  };
  if (input.brand !== undefined) row.brand = input.brand;
  if (input.asn !== undefined) row.asn = input.asn;
  return {
    row,
    family: parsed.family,
    address: parsed.network,
    prefixLength: parsed.prefixLength,
    key: networkKey(parsed.family, parsed.bytes, parsed.prefixLength),
  };
}

/** The fields rows of one source mostly share: kind, source, first_seen, last_seen. */
export type SharedFields = Pick<FeedRow, 'kind' | 'source' | 'first_seen' | 'last_seen'>;

/**
 * Renders a row's kind, source and seen dates once for a run of rows that share them (most rows
 * of a source do), as one flat string: writers then join a few pieces per row instead of a dozen.
 */
export function sharedFieldsMemo(render: (row: SharedFields) => string): (row: SharedFields) => string {
  let last: SharedFields = { kind: '', source: '', first_seen: '', last_seen: '' };
  let out = '';
  return (row) => {
    if (
      row.kind !== last.kind ||
      row.source !== last.source ||
      row.first_seen !== last.first_seen ||
      row.last_seen !== last.last_seen
    ) {
      last = { kind: row.kind, source: row.source, first_seen: row.first_seen, last_seen: row.last_seen };
      out = render(row);
      // Reading a character makes V8 flatten the concatenation now: later joins copy one piece.
      out.charCodeAt(0);
    }
    return out;
  };
}

function cmp(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Total order: network key first, then every other field, so equal keys sort the same whatever the input order. */
export function compareRows(a: CanonicalRow, b: CanonicalRow): number {
  return (
    cmp(a.key, b.key) ||
    cmp(a.row.kind, b.row.kind) ||
    cmp(a.row.source, b.row.source) ||
    cmp(a.row.brand ?? '', b.row.brand ?? '') ||
    cmp(a.row.asn ?? -1, b.row.asn ?? -1) ||
    cmp(a.row.first_seen, b.row.first_seen) ||
    cmp(a.row.last_seen, b.row.last_seen)
  );
}
