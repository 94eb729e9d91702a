/**
 * Feed rows as binary records (issue #35 item 2): what the snapshot build sorts, spills, merges
 * and encodes from (record-cursor.ts), in place of a string and an object per row.
 *
 * A record: its length (u16); the key, 18 bytes that order records as row.ts keys order rows
 * (family byte 4 or 6, the network address big-endian in 16 bytes, an IPv4 one in the first four,
 * then the prefix length); the network's text (u8 length, ASCII); the number of the row's text
 * fields in the sort's FieldTable (u32), or INLINE followed by the fields themselves: kind, source,
 * first_seen and last_seen (each a u16 length and UTF-8, see fieldBytes) and brand (u8 0 when
 * absent, else 1 and the field); asn (u8 0 when absent, else 1 and a u32); zeros to a multiple of 4
 * bytes. Little-endian numbers.
 */
import { withRoom } from './encoders/byte-sink.ts';
import type { FieldTable } from './field-table.ts';
import { quickV6, quickV6Last } from './quick-v6.ts';
import { type CanonicalRow, canonicalizeRow } from './row.ts';
import { isFeedRow } from './row-check.ts';
import type { FeedRow } from './types.ts';

export const FAMILY = 2;
export const ADDRESS = 3;
export const PREFIX = 19;
export const NET_LENGTH = 20;
export const NET = 21;
/** The key: family, address, prefix length. */
/** In place of a FieldTable number: the row's text fields follow in the record. */
export const INLINE = 0xffffffff;
const KEY_START = FAMILY;
const KEY_END = NET_LENGTH;

/** Bytes of a whole record at `o`. */
export function recordLength(buf: Buffer, o: number): number {
  return (buf[o] as number) | ((buf[o + 1] as number) << 8);
}

/**
 * The first 43 bits of a record's key as a number (the order of keys, ties aside): the family bit
 * (IPv6 = 2 ** 42), then for IPv4 the address and prefix length, which is the whole key, or for
 * IPv6 the first 42 address bits.
 */
export function recordHead(buf: Buffer, o: number): number {
  if (buf[o + FAMILY] === 4) return (buf.readUInt32BE(o + ADDRESS) * 64 + (buf[o + PREFIX] as number)) * 16;
  return 2 ** 42 + buf.readUInt32BE(o + ADDRESS) * 1024 + (buf.readUInt32BE(o + ADDRESS + 4) >>> 22);
}

/**
 * `src[start, end)` into `dst` at `at`; the number of bytes. A loop: for the few dozen bytes of a
 * record, Buffer#copy's call costs more than the copy.
 */
export function copyBytes(src: Uint8Array, start: number, end: number, dst: Uint8Array, at: number): number {
  for (let i = start, p = at; i < end; i++, p++) dst[p] = src[i] as number;
  return end - start;
}

/** Key order of the records at `ao` and `bo`. */
export function compareRecordKeys(a: Buffer, ao: number, b: Buffer, bo: number): number {
  for (let i = KEY_START; i < KEY_END; i++) {
    const d = (a[ao + i] as number) - (b[bo + i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * A dotted quad written canonically (no leading zeros, octets <= 255) with an optional `/n`
 * (one to three digits, as parseCidr takes it): its address as an unsigned integer and prefix
 * length in `v4`, or false for anything else, which then goes through parseCidr. What this
 * accepts, parseCidr reads the same way; it only skips parseCidr's general path for the common case.
 */
function quickV4(text: string): boolean {
  digitsAt = 0;
  let address = 0;
  for (let part = 0; part < 4; part++) {
    if (part > 0) {
      if (text.charCodeAt(digitsAt) !== 46) return false;
      digitsAt++;
    }
    const start = digitsAt;
    const octet = readDigits(text);
    if (octet < 0 || octet > 255 || (digitsAt - start > 1 && text.charCodeAt(start) === 48)) return false;
    address = address * 256 + octet;
  }
  v4.address = address;
  v4.prefixLength = 32;
  v4.end = digitsAt;
  if (digitsAt === text.length) return true;
  if (text.charCodeAt(digitsAt) !== 47) return false;
  digitsAt++;
  v4.prefixLength = readDigits(text);
  return v4.prefixLength >= 0 && v4.prefixLength <= 32 && digitsAt === text.length;
}

/** What quickV4 read last. */
const v4 = { address: 0, prefixLength: 0, end: 0 };
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

/** `n` (0-255) in decimal at `p`; the position after it. */
function writeDecimal(buf: Buffer, p: number, n: number): number {
  if (n >= 100) buf[p++] = 48 + Math.floor(n / 100);
  if (n >= 10) buf[p++] = 48 + (Math.floor(n / 10) % 10);
  buf[p++] = 48 + (n % 10);
  return p;
}

const SURROGATE = /[\ud800-\udfff]/;
/** Set in a field's length when the field is UTF-16: text with a surrogate, which UTF-8 may not carry unchanged. */
export const UTF16 = 0x8000;

/** Fields, each as a u16 length and its UTF-8 bytes (UTF-16 and the UTF16 bit for text with a surrogate). */
function fieldBytes(values: readonly string[]): Buffer {
  const parts: Buffer[] = [];
  for (const v of values) {
    const wide = SURROGATE.test(v);
    const bytes = Buffer.from(v, wide ? 'utf16le' : 'utf8');
    const head = Buffer.allocUnsafe(2);
    head.writeUInt16LE(bytes.length | (wide ? UTF16 : 0));
    parts.push(head, bytes);
  }
  return Buffer.concat(parts);
}

/** The field at `p` (see fieldBytes). */
export function readFieldAt(buf: Buffer, p: number): string {
  const n = buf.readUInt16LE(p);
  return buf.toString(n & UTF16 ? 'utf16le' : 'utf8', p + 2, p + 2 + (n & ~UTF16));
}

/** Records appended to one growing buffer, with each one's offset (a run of the sort, or a batch of rows). */
export class RecordWriter {
  buf: Buffer;
  pos = 0;
  offsets: number[] = [];
  /** The text fields of the last row, their number in the table and, when INLINE, their bytes. */
  private last: Pick<FeedRow, 'kind' | 'source' | 'first_seen' | 'last_seen' | 'brand'> = {
    kind: '',
    source: '',
    first_seen: '',
    last_seen: '',
  };
  private fieldsId = -1;
  private inline = Buffer.alloc(0);

  /**
   * Starts on `buf` (its content is overwritten) or on a new buffer of `size` bytes; the rows' text
   * fields go to `fields` (whoever reads the records reads them with it, record-cursor.ts).
   */
  constructor(
    private readonly fields: FieldTable,
    size: number | Buffer = 1 << 20,
  ) {
    this.buf = typeof size === 'number' ? Buffer.allocUnsafe(size) : size;
  }

  get count(): number {
    return this.offsets.length;
  }

  /** Starts again empty on the same buffer. */
  clear(): void {
    this.pos = 0;
    this.offsets = [];
  }

  private room(n: number): void {
    this.buf = withRoom(this.buf, this.pos, n);
  }

  /**
   * Validates, normalizes (as canonicalizeRow: host bits cleared, RFC 5952, a /32 or /128 as the
   * bare address) and appends one input row; a row that is not a FeedRow throws its reason.
   */
  add(input: unknown): void {
    if (!isFeedRow(input)) {
      canonicalizeRow(input); // throws the reason
      return;
    }
    if (quickV4(input.network)) {
      const s = this.start(input);
      const buf = this.buf;
      const host = 32 - v4.prefixLength;
      const address = host === 32 ? 0 : Math.floor(v4.address / 2 ** host) * 2 ** host;
      buf[s + FAMILY] = 4;
      buf.writeUInt32BE(address, s + ADDRESS);
      // A loop: for 12 bytes, Buffer#fill's argument checks cost more than the writes.
      for (let i = s + ADDRESS + 4; i < s + PREFIX; i++) buf[i] = 0;
      buf[s + PREFIX] = v4.prefixLength;
      let p = s + NET;
      if (host === 0) p = this.ascii(input.network, p, v4.end);
      else {
        p = writeDecimal(buf, p, address >>> 24);
        buf[p++] = 46;
        p = writeDecimal(buf, p, (address >>> 16) & 255);
        buf[p++] = 46;
        p = writeDecimal(buf, p, (address >>> 8) & 255);
        buf[p++] = 46;
        p = writeDecimal(buf, p, address & 255);
        buf[p++] = 47;
        p = writeDecimal(buf, p, v4.prefixLength);
      }
      this.finish(s, p, input);
      return;
    }
    const v6 = quickV6(input.network);
    if (v6 !== null) {
      const s = this.start(input);
      const buf = this.buf;
      buf[s + FAMILY] = 6;
      for (let k = 0; k < 4; k++) buf.writeUInt32BE(quickV6Last.words[k] as number, s + ADDRESS + 4 * k);
      buf[s + PREFIX] = quickV6Last.prefixLength;
      this.finish(s, this.ascii(v6, s + NET), input);
      return;
    }
    // The general path: canonicalizeRow throws on a network it cannot read, before anything is written.
    this.addCanonical(canonicalizeRow(input));
  }

  /** Appends a canonical row (one merged from several, sort-rows.ts). */
  addCanonical(c: CanonicalRow): void {
    const s = this.start(c.row);
    this.addKeyed(s, c);
    this.finish(s, this.ascii(c.row.network, s + NET), c.row);
  }

  /** Room for the row's record, its text fields numbered (or encoded); the record's offset. */
  private start(row: FeedRow): number {
    const f = this.last;
    if (
      this.fieldsId === -1 ||
      row.kind !== f.kind ||
      row.source !== f.source ||
      row.first_seen !== f.first_seen ||
      row.last_seen !== f.last_seen ||
      row.brand !== f.brand
    ) {
      const { kind, source, first_seen, last_seen, brand } = row;
      this.last = { kind, source, first_seen, last_seen, brand };
      const id = this.fields.idOf(row);
      this.fieldsId = id === -1 ? INLINE : id;
      this.inline =
        id !== -1
          ? Buffer.alloc(0)
          : Buffer.concat([
              fieldBytes([kind, source, first_seen, last_seen]),
              brand === undefined
                ? Buffer.from([0, 0, 0])
                : Buffer.concat([Buffer.from([1]), fieldBytes([brand])]),
            ]);
    }
    this.room(NET + 64 + 4 + this.inline.length + 8);
    this.offsets.push(this.pos);
    return this.pos;
  }

  /** The key of a row canonicalizeRow made, from its hex key. */
  private addKeyed(s: number, c: CanonicalRow): void {
    const buf = this.buf;
    buf[s + FAMILY] = c.family;
    buf.fill(0, s + ADDRESS, s + PREFIX);
    const hex = c.key.slice(1, -3);
    for (let i = 0; i < hex.length; i += 2)
      buf[s + ADDRESS + i / 2] = Number.parseInt(hex.slice(i, i + 2), 16);
    buf[s + PREFIX] = c.prefixLength;
  }

  /** `text` (ASCII) up to `end` at `p`; the position after it. */
  private ascii(text: string, p: number, end = text.length): number {
    const buf = this.buf;
    for (let i = 0; i < end; i++) buf[p++] = text.charCodeAt(i);
    return p;
  }

  /** The fields after the network text at `p`, and the record's lengths. */
  private finish(s: number, p: number, row: FeedRow): void {
    const buf = this.buf;
    buf[s + NET_LENGTH] = p - s - NET;
    buf.writeUInt32LE(this.fieldsId, p);
    p += 4;
    if (this.fieldsId === INLINE) p += copyBytes(this.inline, 0, this.inline.length, buf, p);
    if (row.asn === undefined) buf[p++] = 0;
    else {
      buf[p++] = 1;
      buf.writeUInt32LE(row.asn, p);
      p += 4;
    }
    // Padded to whole 32-bit words, so that a run can be put in order a word at a time (record-runs.ts).
    while ((p - s) & 3) buf[p++] = 0;
    buf.writeUInt16LE(p - s, s);
    this.pos = p;
  }
}
