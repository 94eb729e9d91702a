import { TypeCompiler } from '@sinclair/typebox/compiler';
import { type IpFamily, parseCidr } from '../core/ip.ts';
import { quickV6 } from './quick-v6.ts';
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

/**
 * A dotted quad written canonically (no leading zeros, octets <= 255) with an optional `/n`
 * (one to three digits, as parseCidr takes it): its address as an unsigned integer and prefix
 * length, or null for anything else, which then goes through parseCidr. What this accepts,
 * parseCidr reads the same way; it only skips parseCidr's general path for the common case.
 */
function quickV4(text: string): { address: number; prefixLength: number } | null {
  digitsAt = 0;
  let address = 0;
  for (let part = 0; part < 4; part++) {
    if (part > 0) {
      if (text.charCodeAt(digitsAt) !== 46) return null;
      digitsAt++;
    }
    const start = digitsAt;
    const octet = readDigits(text);
    if (octet < 0 || octet > 255 || (digitsAt - start > 1 && text.charCodeAt(start) === 48)) return null;
    address = address * 256 + octet;
  }
  if (digitsAt === text.length) return { address, prefixLength: 32 };
  if (text.charCodeAt(digitsAt) !== 47) return null;
  digitsAt++;
  const prefixLength = readDigits(text);
  return prefixLength < 0 || prefixLength > 32 || digitsAt !== text.length ? null : { address, prefixLength };
}

/** Where readDigits reads next (quickV4's cursor). */
let digitsAt = 0;

/** One to three decimal digits at `digitsAt` (which moves past them): their value, or -1. */
function readDigits(text: string): number {
  const start = digitsAt;
  let value = 0;
  while (digitsAt < text.length) {
    const d = text.charCodeAt(digitsAt) - 48;
    if (d < 0 || d > 9) break;
    value = value * 10 + d;
    digitsAt++;
  }
  const n = digitsAt - start;
  return n === 0 || n > 3 ? -1 : value;
}

/**
 * The first 43 bits of a row's key as a number, for a typed-array sort of a run (sort-rows.ts):
 * the family bit (IPv6 = 2 ** 42), then for IPv4 the address and prefix length, which is the
 * whole key, or for IPv6 the first 42 address bits, after which ties are broken on the key.
 */
function keyHead(key: string): number {
  if (key.charCodeAt(0) === 52)
    return (Number.parseInt(key.slice(1, 9), 16) * 64 + Number(key.slice(9))) * 16;
  return 2 ** 42 + Number.parseInt(key.slice(1, 11), 16) * 4 + (Number.parseInt(key.charAt(11), 16) >> 2);
}

/** The fields rows of one source mostly share: kind, source, first_seen, last_seen. */
type SharedFields = Pick<FeedRow, 'kind' | 'source' | 'first_seen' | 'last_seen'>;

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

const FIELD_ESCAPE = /[\t\n\\\ud800-\udfff]|^"/;

/** A field of a row line: as is, or (when it holds a tab, newline, backslash, surrogate or leading quote) as a JSON string. */
function lineField(value: string): string {
  return FIELD_ESCAPE.test(value) ? JSON.stringify(value) : value;
}

function readField(value: string): string {
  return value.charCodeAt(0) === 34 ? (JSON.parse(value) as string) : value;
}

/** A row as one line for the sort (sort-rows.ts), and the head of its key (keyHead). */
export interface RowLine {
  line: string;
  head: number;
}

/**
 * Validates and normalizes a row like canonicalizeRow, and writes it as one line for the sort:
 * key, network, kind, source, first_seen, last_seen, brand, asn, tab-separated, with no newline.
 * Keys of one family have one length, so lines sort by key as plain strings.
 */
const lineShared = sharedFieldsMemo(
  (r) =>
    `${lineField(r.kind)}\t${lineField(r.source)}\t${lineField(r.first_seen)}\t${lineField(r.last_seen)}`,
);

export function rowLine(input: unknown): RowLine {
  if (!rowCheck.Check(input)) return { line: canonicalizeRow(input).key, head: 0 }; // throws the reason
  let key: string;
  let network: string;
  let head: number;
  const v4 = quickV4(input.network);
  if (v4) {
    const host = 32 - v4.prefixLength;
    // Host bits cleared, in float arithmetic so the address stays unsigned.
    const address = host === 32 ? 0 : Math.floor(v4.address / 2 ** host) * 2 ** host;
    const text = `${address >>> 24}.${(address >>> 16) & 255}.${(address >>> 8) & 255}.${address & 255}`;
    network = host === 0 ? text : `${text}/${v4.prefixLength}`;
    key = `4${address.toString(16).padStart(8, '0')}${String(v4.prefixLength).padStart(3, '0')}`;
    head = (address * 64 + v4.prefixLength) * 16;
  } else {
    const v6 = quickV6(input.network);
    if (v6) ({ network, key, head } = v6);
    else {
      const c = canonicalizeRow(input);
      network = c.row.network;
      key = c.key;
      head = keyHead(key);
    }
  }
  const brand = input.brand === undefined ? '' : lineField(input.brand);
  const line = `${key}\t${network}\t${lineShared(input)}\t${brand}\t${input.asn ?? ''}`;
  // Reading a character makes V8 flatten the concatenation into one string now, while its pieces
  // are young: a run holds 100,000 lines, and unflattened each would keep a dozen pieces alive.
  line.charCodeAt(0);
  return { line, head };
}

/** The canonical row a line of rowLine holds. */
export function rowFromLine(line: string): CanonicalRow {
  const f = line.split('\t');
  const key = f[0] as string;
  const network = f[1] as string;
  const row: FeedRow = {
    network,
    kind: readField(f[2] as string),
    source: readField(f[3] as string),
    first_seen: readField(f[4] as string),
    last_seen: readField(f[5] as string),
  };
  if (f[6]) row.brand = readField(f[6]);
  if (f[7]) row.asn = Number(f[7]);
  const slash = network.indexOf('/');
  return {
    row,
    family: key.charCodeAt(0) === 52 ? 4 : 6,
    address: slash === -1 ? network : network.slice(0, slash),
    prefixLength: Number(key.slice(-3)),
    key,
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
