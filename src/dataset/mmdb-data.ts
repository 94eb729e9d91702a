/**
 * The data section of a MaxMind DB (MaxMind DB File Format Specification 2.0, "Output Data
 * Section"): values are encoded into a 1 MB buffer that is appended to a file whenever it fills,
 * so a data section of hundreds of megabytes never sits in memory. Strings, and maps and arrays
 * nested in a value, are written once: a repeat is a pointer to the first copy.
 */
import { writeSync } from 'node:fs';

/** A value already in the data section, written in a map or array as a pointer to it. */
export class MmdbPointer {
  constructor(readonly offset: number) {}

  /** Its key among the shared values' JSON texts (no map reads like this). */
  toJSON(): string {
    return `\u0000pointer ${this.offset}`;
  }
}

export type MmdbValue = string | number | boolean | readonly MmdbValue[] | MmdbMap | MmdbPointer;
export interface MmdbMap {
  readonly [key: string]: MmdbValue;
}

// Spec "Output Data Section": the type numbers; 8 and above are written as extended types.
const T_POINTER = 1;
const T_STRING = 2;
const T_DOUBLE = 3;
export const T_UINT16 = 5;
export const T_UINT32 = 6;
export const T_MAP = 7;
export const T_UINT64 = 9;
const T_ARRAY = 11;
const T_BOOLEAN = 14;

/** A byte buffer: grows in memory, or, given a file descriptor, is appended to it when full. */
export class Bytes {
  private buf = Buffer.alloc(1 << 20);
  private used = 0;
  /** Bytes already appended to the file. */
  private flushed = 0;

  constructor(private readonly fd: number | null = null) {}

  /** Bytes written so far (the offset of the next one). */
  get length(): number {
    return this.flushed + this.used;
  }

  private reserve(n: number): void {
    if (this.used + n <= this.buf.length) return;
    if (this.fd !== null) {
      this.flush();
      if (n <= this.buf.length) return;
    }
    let size = this.buf.length * 2;
    while (size < this.used + n) size *= 2;
    const next = Buffer.alloc(size);
    this.buf.copy(next, 0, 0, this.used);
    this.buf = next;
  }

  /** Appends what is buffered to the file (a no-op without one). */
  flush(): void {
    if (this.fd === null) return;
    for (let at = 0; at < this.used; ) at += writeSync(this.fd, this.buf, at, this.used - at);
    this.flushed += this.used;
    this.used = 0;
  }

  byte(b: number): void {
    this.reserve(1);
    this.buf[this.used++] = b;
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.used);
    this.used += b.length;
  }

  /** A string: its control byte (with its UTF-8 length), then its bytes. */
  string(value: string): void {
    const n = Buffer.byteLength(value, 'utf8');
    writeControl(this, T_STRING, n);
    this.reserve(n);
    this.used += this.buf.write(value, this.used, 'utf8');
  }

  double(value: number): void {
    writeControl(this, T_DOUBLE, 8);
    this.reserve(8);
    this.buf.writeDoubleBE(value, this.used);
    this.used += 8;
  }

  /** What an in-memory buffer holds. */
  result(): Buffer {
    return this.buf.subarray(0, this.used);
  }
}

/** Control byte (type, size) and the size's extra bytes: spec "Control Byte" and "Payload Size". */
export function writeControl(out: Bytes, type: number, size: number): void {
  const typeBits = type <= 7 ? type : 0;
  let sizeBits = size;
  let extra: number[] = [];
  if (size >= 65_821) {
    const s = size - 65_821;
    sizeBits = 31;
    extra = [(s >> 16) & 255, (s >> 8) & 255, s & 255];
  } else if (size >= 285) {
    sizeBits = 30;
    extra = [(size - 285) >> 8, (size - 285) & 255];
  } else if (size >= 29) {
    sizeBits = 29;
    extra = [size - 29];
  }
  out.byte((typeBits << 5) | sizeBits);
  if (type > 7) out.byte(type - 7);
  for (const b of extra) out.byte(b);
}

/** Spec "Pointer - 1": four sizes, each adding the range the smaller ones cover. */
function writePointer(out: Bytes, offset: number): void {
  const p = T_POINTER << 5;
  if (offset < 2048) {
    out.byte(p | (offset >> 8));
    out.byte(offset & 255);
  } else if (offset < 526_336) {
    const v = offset - 2048;
    out.byte(p | (1 << 3) | (v >> 16));
    out.byte((v >> 8) & 255);
    out.byte(v & 255);
  } else if (offset < 134_744_064) {
    const v = offset - 526_336;
    out.byte(p | (2 << 3) | (v >>> 24));
    out.byte((v >> 16) & 255);
    out.byte((v >> 8) & 255);
    out.byte(v & 255);
  } else {
    out.byte(p | (3 << 3));
    for (const shift of [24, 16, 8, 0]) out.byte((offset >>> shift) & 255);
  }
}

/** Big-endian unsigned integer without leading zero bytes (spec: uint16/32/64 payloads). */
export function writeUint(out: Bytes, type: number, value: number): void {
  const bytes: number[] = [];
  for (let v = value; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  writeControl(out, type, bytes.length);
  for (const b of bytes) out.byte(b);
}

/** Unsigned integers as uint16 or uint32; anything else as a double. */
function writeNumber(out: Bytes, value: number): void {
  if (Number.isInteger(value) && value >= 0 && value <= 0xffffffff)
    writeUint(out, value <= 0xffff ? T_UINT16 : T_UINT32, value);
  else out.double(value);
}

/**
 * A value written in full, with `inner` writing what a map or array holds (a pointer where the
 * data section shares it; plain in the metadata, which has no pointer base of its own).
 */
function writeWith(out: Bytes, value: MmdbValue, inner: (v: MmdbValue) => void): void {
  if (typeof value === 'string') out.string(value);
  else if (typeof value === 'boolean') writeControl(out, T_BOOLEAN, value ? 1 : 0);
  else if (typeof value === 'number') writeNumber(out, value);
  else if (value instanceof MmdbPointer) writePointer(out, value.offset);
  else if (Array.isArray(value)) {
    writeControl(out, T_ARRAY, value.length);
    for (const v of value as readonly MmdbValue[]) inner(v);
  } else {
    const entries = Object.entries(value as MmdbMap);
    writeControl(out, T_MAP, entries.length);
    for (const [k, v] of entries) {
      inner(k);
      inner(v);
    }
  }
}

/** A value without pointers (the metadata section). */
export function writePlain(out: Bytes, value: MmdbValue): void {
  writeWith(out, value, (v) => writePlain(out, v));
}

export class DataSection {
  readonly out: Bytes;
  /** Offsets of the strings written, and of nested maps and arrays by their JSON text. */
  private readonly strings = new Map<string, number>();
  private readonly objects = new Map<string, number>();

  /** `fd`: the file the section is appended to as it grows (else it stays in memory). */
  constructor(fd: number | null = null) {
    this.out = new Bytes(fd);
  }

  /** Writes a value where the section ends and returns its offset (its own copy, not shared). */
  write(value: MmdbValue): number {
    const at = this.out.length;
    writeWith(this.out, value, (v) => this.writeShared(v));
    return at;
  }

  /** The offset of an equal string, map or array written before as shared, or of this one, written now. */
  shared(value: string | MmdbMap | readonly MmdbValue[]): number {
    const table = typeof value === 'string' ? this.strings : this.objects;
    const key = typeof value === 'string' ? value : JSON.stringify(value);
    let at = table.get(key);
    if (at === undefined) {
      at = this.write(value);
      table.set(key, at);
    }
    return at;
  }

  /** Writes a map given as entries (keys may be pointers to strings written before); its offset. */
  entries(list: readonly (readonly [string | MmdbPointer, MmdbValue])[]): number {
    const at = this.out.length;
    writeControl(this.out, T_MAP, list.length);
    for (const [k, v] of list) {
      this.writeShared(k);
      this.writeShared(v);
    }
    return at;
  }

  /** A value inside a map or array: a pointer to an earlier copy, or the value itself. */
  private writeShared(value: MmdbValue): void {
    if (typeof value === 'object' && !(value instanceof MmdbPointer)) {
      // A first copy is written in place; later ones point at it.
      const key = JSON.stringify(value);
      const known = this.objects.get(key);
      if (known !== undefined) writePointer(this.out, known);
      else this.objects.set(key, this.write(value));
      return;
    }
    // Numbers, booleans and strings of up to 3 bytes cost no more in place than a pointer.
    if (typeof value !== 'string' || value.length <= 3) {
      writeWith(this.out, value, () => {});
      return;
    }
    const known = this.strings.get(value);
    if (known !== undefined) writePointer(this.out, known);
    else this.strings.set(value, this.write(value));
  }
}
