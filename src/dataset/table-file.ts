/**
 * One binary file of named typed arrays (`tables.bin`) plus its section list. Sections are
 * 8-byte aligned so that loading is a single read and zero-copy views: no parsing at start.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export type TypedArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;
type TypeName = 'u8' | 'u16' | 'u32' | 'i32' | 'f64';

export interface Section {
  name: string;
  type: TypeName;
  offset: number;
  length: number;
}

const CTORS = {
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  i32: Int32Array,
  f64: Float64Array,
} as const;

function typeOf(a: TypedArray): TypeName {
  if (a instanceof Uint8Array) return 'u8';
  if (a instanceof Uint16Array) return 'u16';
  if (a instanceof Uint32Array) return 'u32';
  if (a instanceof Int32Array) return 'i32';
  return 'f64';
}

type TypedArrayCtor = { new (length: number): TypedArray; readonly name: string };

/**
 * A typed column built from plain numbers that refuses any value the element type cannot hold.
 * `Uint16Array.from` wraps silently (75,113 becomes 9,577), which once gave most cloud and
 * crawler addresses another organisation's name; every snapshot column goes through here.
 */
export function column<T>(
  Ctor: TypedArrayCtor,
  name: string,
  items: ArrayLike<T>,
  value: (item: T) => number,
): TypedArray {
  const out = new Ctor(items.length);
  for (let i = 0; i < items.length; i++) {
    const v = value(items[i] as T);
    out[i] = v;
    if (out[i] !== v) {
      throw new RangeError(`snapshot table ${name}: value ${v} at row ${i} does not fit ${Ctor.name}`);
    }
  }
  return out;
}

export function writeTables(file: string, tables: Record<string, TypedArray>): Section[] {
  const sections: Section[] = [];
  let offset = 0;
  for (const [name, arr] of Object.entries(tables)) {
    sections.push({ name, type: typeOf(arr), offset, length: arr.length });
    offset += Math.ceil(arr.byteLength / 8) * 8;
  }
  const buf = Buffer.alloc(offset);
  for (const s of sections) {
    const arr = tables[s.name] as TypedArray;
    buf.set(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength), s.offset);
  }
  writeFileSync(file, buf);
  return sections;
}

/** The byte size writeTables gives a file of these sections (each padded to 8 bytes). */
export function tablesByteLength(sections: readonly Section[]): number {
  let end = 0;
  for (const s of sections) {
    const Ctor = CTORS[s.type];
    if (!Ctor) throw new Error(`snapshot table ${s.name} has unknown type ${String(s.type)}`);
    end = Math.max(end, s.offset + Math.ceil((s.length * Ctor.BYTES_PER_ELEMENT) / 8) * 8);
  }
  return end;
}

export class TableFile {
  private readonly views = new Map<string, TypedArray>();
  /** `data`: the file's bytes when the caller has read them already (the async load). */
  constructor(file: string, sections: Section[], data?: Buffer) {
    let buf = data ?? readFileSync(file);
    if (buf.byteOffset % 8 !== 0) buf = Buffer.from(buf);
    for (const s of sections) {
      const Ctor = CTORS[s.type];
      // Every offset and length comes from the manifest: bounded by the file before any view.
      if (
        !Ctor ||
        !Number.isSafeInteger(s.offset) ||
        !Number.isSafeInteger(s.length) ||
        s.offset < 0 ||
        s.length < 0 ||
        s.offset % Ctor.BYTES_PER_ELEMENT !== 0
      ) {
        throw new Error(`snapshot table ${s.name} has an invalid section entry`);
      }
      if (s.offset + s.length * Ctor.BYTES_PER_ELEMENT > buf.byteLength) {
        throw new Error(`snapshot table ${s.name} runs past the end of ${file}`);
      }
      this.views.set(s.name, new Ctor(buf.buffer as ArrayBuffer, buf.byteOffset + s.offset, s.length));
    }
  }
  private get(name: string, type: TypeName): TypedArray {
    const v = this.views.get(name);
    if (!v || typeOf(v) !== type) throw new Error(`snapshot table ${name} (${type}) is missing`);
    return v;
  }
  u8(name: string): Uint8Array {
    return this.get(name, 'u8') as Uint8Array;
  }
  u16(name: string): Uint16Array {
    return this.get(name, 'u16') as Uint16Array;
  }
  u32(name: string): Uint32Array {
    return this.get(name, 'u32') as Uint32Array;
  }
  i32(name: string): Int32Array {
    return this.get(name, 'i32') as Int32Array;
  }
}
