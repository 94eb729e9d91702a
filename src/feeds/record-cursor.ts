/**
 * Binary records (row-record.ts) read in place. The encoders write from a RecordCursor: the
 * network's text stays in the record's bytes and is copied from there, and kind, source, the seen
 * dates and brand come from the sort's FieldTable by number (or are decoded once for a run of
 * records that carry the same ones in full), so a row costs no object and no string (issue #35 item 2). RecordRows makes CanonicalRows of
 * records where objects are wanted (merging one network's rows, sortFeedRows).
 */
import type { IpFamily } from '../core/ip.ts';
import type { FieldTable } from './field-table.ts';
import type { CanonicalRow, SharedFields } from './row.ts';
import { ADDRESS, FAMILY, INLINE, NET, NET_LENGTH, PREFIX, readFieldAt, UTF16 } from './row-record.ts';

/** Whether buf[a, a + n) equals prev[0, n). */
function sameBytes(buf: Buffer, a: number, n: number, prev: Buffer): boolean {
  if (prev.length !== n) return false;
  for (let i = 0; i < n; i++) if (buf[a + i] !== prev[i]) return false;
  return true;
}

/** One record at a time, read in place: `at` moves the cursor to a record. */
export class RecordCursor {
  buf: Buffer = Buffer.alloc(0);
  /** Where the record starts in `buf`. */
  offset = 0;
  family: IpFamily = 4;
  prefixLength = 0;
  /** The network's text (ASCII, normalized as row.ts writes it) is buf[netStart, netEnd). */
  netStart = 0;
  netEnd = 0;
  /** The address without `/prefix` is buf[netStart, addressEnd) (addressEnd = netEnd for a bare address). */
  addressEnd = 0;
  /** kind, source, first_seen, last_seen: the same object for a run of records that share them. */
  shared: SharedFields = { kind: '', source: '', first_seen: '', last_seen: '' };
  brand: string | undefined = undefined;
  asn: number | undefined = undefined;
  /** The FieldTable number of the fields read last (INLINE: read from the record's bytes). */
  private fieldsId = -1;
  private sharedBytes = Buffer.alloc(0);
  private brandBytes = Buffer.alloc(0);
  private brandText = '';

  /** Reads records whose text fields were numbered in `fields` (row-record.ts RecordWriter). */
  constructor(readonly fields: FieldTable) {}

  /** Moves to the record at `o` of `buf`. */
  at(buf: Buffer, o: number): this {
    this.buf = buf;
    this.offset = o;
    const family = buf[o + FAMILY] === 4 ? 4 : 6;
    const prefixLength = buf[o + PREFIX] as number;
    const start = o + NET;
    const end = start + (buf[o + NET_LENGTH] as number);
    this.family = family;
    this.prefixLength = prefixLength;
    this.netStart = start;
    this.netEnd = end;
    let slash = end;
    if (prefixLength !== (family === 4 ? 32 : 128)) while (buf[--slash] !== 47);
    this.addressEnd = slash;
    const id = buf.readUInt32LE(end);
    const p = end + 4;
    if (id === INLINE) this.asn = this.readInline(p);
    else {
      if (id !== this.fieldsId) {
        const set = this.fields.sets[id];
        if (!set) throw new Error(`feed record: no field set ${id}`);
        this.shared = set.shared;
        this.brand = set.brand;
      }
      this.asn = buf[p] === 1 ? buf.readUInt32LE(p + 1) : undefined;
    }
    this.fieldsId = id;
    return this;
  }

  /** Text fields written in the record at `start` (row-record.ts INLINE); the asn after them. */
  private readInline(start: number): number | undefined {
    const buf = this.buf;
    let p = start;
    for (let k = 0; k < 4; k++) p += 2 + (buf.readUInt16LE(p) & ~UTF16);
    if (this.fieldsId !== INLINE || !sameBytes(buf, start, p - start, this.sharedBytes))
      this.readShared(start, p);
    if (buf[p++] === 1) {
      const fieldEnd = p + 2 + (buf.readUInt16LE(p) & ~UTF16);
      if (!sameBytes(buf, p, fieldEnd - p, this.brandBytes)) {
        this.brandBytes = Buffer.from(buf.subarray(p, fieldEnd));
        this.brandText = readFieldAt(buf, p);
      }
      this.brand = this.brandText;
      p = fieldEnd;
    } else {
      this.brand = undefined;
      p += 2;
    }
    return buf[p] === 1 ? buf.readUInt32LE(p + 1) : undefined;
  }

  private readShared(start: number, end: number): void {
    const buf = this.buf;
    this.sharedBytes = Buffer.from(buf.subarray(start, end));
    const fields: string[] = [];
    for (let p = start, k = 0; k < 4; k++) {
      fields.push(readFieldAt(buf, p));
      p += 2 + (buf.readUInt16LE(p) & ~UTF16);
    }
    const [kind = '', source = '', first_seen = '', last_seen = ''] = fields;
    this.shared = { kind, source, first_seen, last_seen };
  }

  /** The network's text. */
  network(): string {
    return this.buf.toString('latin1', this.netStart, this.netEnd);
  }
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const PREFIX_TEXT = Array.from({ length: 129 }, (_, i) => String(i).padStart(3, '0'));

/** The row.ts key of the record at `o`. */
function recordKey(buf: Buffer, o: number): string {
  const family = buf[o + FAMILY] as number;
  let key = family === 4 ? '4' : '6';
  const end = o + ADDRESS + (family === 4 ? 4 : 16);
  for (let i = o + ADDRESS; i < end; i++) key += HEX[buf[i] as number];
  return key + PREFIX_TEXT[buf[o + PREFIX] as number];
}

/** Records read back as canonical rows. */
export class RecordRows {
  private readonly cursor: RecordCursor;

  constructor(fields: FieldTable) {
    this.cursor = new RecordCursor(fields);
  }

  row(buf: Buffer, o: number): CanonicalRow {
    const r = this.cursor.at(buf, o);
    const network = r.network();
    const { shared } = r;
    const row: CanonicalRow['row'] = {
      network,
      kind: shared.kind,
      source: shared.source,
      first_seen: shared.first_seen,
      last_seen: shared.last_seen,
    };
    if (r.brand !== undefined) row.brand = r.brand;
    if (r.asn !== undefined) row.asn = r.asn;
    return {
      row,
      family: r.family,
      address: network.slice(0, r.addressEnd - r.netStart),
      prefixLength: r.prefixLength,
      key: recordKey(buf, o),
    };
  }
}
