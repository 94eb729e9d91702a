/**
 * A MaxMind DB writer (MaxMind DB File Format Specification 2.0): a binary search tree over the
 * 128-bit address space, a data section of deduplicated values, and a metadata map. No npm
 * package writes MMDB (MaxMind's own writers are Go and Perl), so this is ours, kept to what the
 * export needs: IPv6 trees with IPv4 under ::/96 and ::ffff:0:0/96 aliased to it, maps, arrays,
 * strings, unsigned integers, doubles and booleans.
 */

export type MmdbValue = string | number | boolean | readonly MmdbValue[] | MmdbMap;
export interface MmdbMap {
  readonly [key: string]: MmdbValue;
}

export interface MmdbWriterOptions {
  databaseType: string;
  description: string;
  /** Seconds since the epoch (metadata build_epoch). */
  buildEpoch: number;
  /** Map keys whose values are mostly unique (a network's prefix): written in place, never looked up. */
  unshared?: readonly string[];
  /** Bits per tree record; by default the smallest of 24, 28 and 32 that can address the file. */
  recordSize?: 24 | 28 | 32;
}

export interface MmdbWriter {
  /**
   * Writes a network's record to the data section and returns where it is. Records are not
   * compared with earlier ones (each usually carries its own prefix): reuse the offset instead.
   */
  record(value: MmdbMap): number;
  /** Points the network `first`/`length` at a record (IPv4 networks live under ::/96). */
  insert(family: 4 | 6, first: bigint, length: number, record: number): void;
  /** The finished file: tree, 16-byte separator, data section, metadata. */
  toBuffer(): Buffer;
}

// Spec "Output Data Section": the type numbers; 8 and above are written as extended types.
const T_POINTER = 1;
const T_STRING = 2;
const T_DOUBLE = 3;
const T_UINT16 = 5;
const T_UINT32 = 6;
const T_MAP = 7;
const T_UINT64 = 9;
const T_ARRAY = 11;
const T_BOOLEAN = 14;

const METADATA_MARKER = Buffer.from([0xab, 0xcd, 0xef, ...Buffer.from('MaxMind.com')]);

/** A growing byte buffer. */
class Bytes {
  buf = Buffer.alloc(1 << 16);
  length = 0;

  reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = Buffer.alloc(size);
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  byte(b: number): void {
    this.reserve(1);
    this.buf[this.length++] = b;
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  /** A string: its control byte (with its UTF-8 length), then its bytes. */
  string(value: string): void {
    const n = Buffer.byteLength(value, 'utf8');
    writeControl(this, T_STRING, n);
    this.reserve(n);
    this.length += this.buf.write(value, this.length, 'utf8');
  }

  result(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

/** Control byte (type, size) and the size's extra bytes: spec "Control Byte" and "Payload Size". */
function writeControl(out: Bytes, type: number, size: number): void {
  const typeBits = type <= 7 ? type : 0;
  let sizeBits: number;
  let extra: number[] = [];
  if (size < 29) sizeBits = size;
  else if (size < 285) {
    sizeBits = 29;
    extra = [size - 29];
  } else if (size < 65_821) {
    sizeBits = 30;
    extra = [(size - 285) >> 8, (size - 285) & 255];
  } else {
    sizeBits = 31;
    const s = size - 65_821;
    extra = [(s >> 16) & 255, (s >> 8) & 255, s & 255];
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
function writeUint(out: Bytes, type: number, value: bigint): void {
  const bytes: number[] = [];
  for (let v = value; v > 0n; v >>= 8n) bytes.unshift(Number(v & 255n));
  writeControl(out, type, bytes.length);
  for (const b of bytes) out.byte(b);
}

/**
 * The data section. Every string, map and array is written once: a repeat is a pointer to the
 * first copy (map keys included), so a million networks share their organisation names, flag
 * maps and threat maps. Numbers and booleans are written in place.
 */
class DataSection {
  readonly out = new Bytes();
  constructor(private readonly unshared: ReadonlySet<string>) {}

  /** Offsets of the strings written, and of maps and arrays by their JSON text. */
  private readonly strings = new Map<string, number>();
  private readonly objects = new Map<string, number>();

  private readonly byRef = new WeakMap<object, number>();

  /** Writes a top-level value where the data section ends; its offset. */
  record(value: MmdbMap): number {
    const at = this.out.length;
    this.writeValue(value);
    return at;
  }

  private find(value: MmdbValue): number | undefined {
    if (typeof value !== 'object') return this.strings.get(String(value));
    const known = this.byRef.get(value);
    if (known !== undefined) return known;
    const at = this.objects.get(JSON.stringify(value));
    if (at !== undefined) this.byRef.set(value, at);
    return at;
  }

  private append(value: MmdbValue): number {
    const at = this.out.length;
    this.writeValue(value);
    if (typeof value !== 'object') this.strings.set(String(value), at);
    else {
      this.objects.set(JSON.stringify(value), at);
      this.byRef.set(value, at);
    }
    return at;
  }

  /** A value inside a map or array: a pointer to an earlier copy, or the value itself. */
  private writeShared(value: MmdbValue): void {
    // Numbers, booleans and strings of up to 3 bytes cost no more in place than a pointer.
    const shared = typeof value === 'object' || (typeof value === 'string' && value.length > 3);
    const known = shared ? this.find(value) : undefined;
    if (known !== undefined) writePointer(this.out, known);
    else if (shared) this.append(value);
    else this.writeValue(value);
  }

  private writeValue(value: MmdbValue): void {
    const out = this.out;
    if (typeof value === 'string') out.string(value);
    else if (typeof value === 'boolean') writeControl(out, T_BOOLEAN, value ? 1 : 0);
    else if (typeof value === 'number') writeNumber(out, value);
    else if (Array.isArray(value)) {
      writeControl(out, T_ARRAY, value.length);
      for (const v of value as readonly MmdbValue[]) this.writeShared(v);
    } else {
      const entries = Object.entries(value as MmdbMap);
      writeControl(out, T_MAP, entries.length);
      for (const [k, v] of entries) {
        this.writeShared(k);
        if (this.unshared.has(k)) this.writeValue(v);
        else this.writeShared(v);
      }
    }
  }
}

function writeNumber(out: Bytes, value: number): void {
  if (Number.isInteger(value) && value >= 0 && value <= 0xffffffff) {
    writeUint(out, value <= 0xffff ? T_UINT16 : T_UINT32, BigInt(value));
    return;
  }
  writeControl(out, T_DOUBLE, 8);
  const b = Buffer.alloc(8);
  b.writeDoubleBE(value);
  out.bytes(b);
}

/** A value written without pointers (the metadata section has no pointer base of its own). */
function writePlain(out: Bytes, value: MmdbValue): void {
  if (typeof value === 'string') out.string(value);
  else if (typeof value === 'number') writeNumber(out, value);
  else if (typeof value === 'boolean') writeControl(out, T_BOOLEAN, value ? 1 : 0);
  else if (Array.isArray(value)) {
    writeControl(out, T_ARRAY, value.length);
    for (const v of value as readonly MmdbValue[]) writePlain(out, v);
  } else {
    const entries = Object.entries(value as MmdbMap);
    writeControl(out, T_MAP, entries.length);
    for (const [k, v] of entries) {
      writePlain(out, k);
      writePlain(out, v);
    }
  }
}

/**
 * The tree while it is built: node n has children left[n] (bit 0) and right[n] (bit 1), each
 * EMPTY, a node index (>= 0), or a data offset d stored as -(d + 2).
 */
const EMPTY = -1;

class Tree {
  left = new Int32Array(1 << 16).fill(EMPTY);
  right = new Int32Array(1 << 16).fill(EMPTY);
  count = 1;

  newNode(child: number): number {
    if (this.count === this.left.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2).fill(EMPTY);
        b.set(a);
        return b;
      };
      this.left = grow(this.left);
      this.right = grow(this.right);
    }
    const n = this.count++;
    this.left[n] = child;
    this.right[n] = child;
    return n;
  }

  /**
   * Sets the record reached by the first `depth` bits of the address (four big-endian words) to
   * `value`. A shorter network already there is split, so the later insert wins.
   */
  set(words: Uint32Array, depth: number, value: number): void {
    let node = 0;
    for (let i = 0; i < depth - 1; i++) {
      const bit = ((words[i >>> 5] as number) >>> (31 - (i & 31))) & 1;
      const side = bit ? this.right : this.left;
      let child = side[node] as number;
      if (child < 0) {
        child = this.newNode(child);
        side[node] = child;
      }
      node = child;
    }
    const i = depth - 1;
    const bit = ((words[i >>> 5] as number) >>> (31 - (i & 31))) & 1;
    (bit ? this.right : this.left)[node] = value;
  }

  /** The node reached by the first `depth` bits, or -1 when the path is not (fully) built. */
  nodeAt(words: Uint32Array, depth: number): number {
    let node = 0;
    for (let i = 0; i < depth && node >= 0; i++) {
      const bit = ((words[i >>> 5] as number) >>> (31 - (i & 31))) & 1;
      node = (bit ? this.right : this.left)[node] as number;
    }
    return node;
  }
}

const MASK64 = 0xffffffffn;

function toWords(value: bigint, out: Uint32Array): void {
  out[0] = Number((value >> 96n) & MASK64);
  out[1] = Number((value >> 64n) & MASK64);
  out[2] = Number((value >> 32n) & MASK64);
  out[3] = Number(value & MASK64);
}

/** Bytes per node for a record size (spec "Search Tree Section": two records per node). */
function nodeBytes(recordSize: 24 | 28 | 32): number {
  return (recordSize * 2) / 8;
}

function writeNode(buf: Buffer, at: number, recordSize: 24 | 28 | 32, l: number, r: number): void {
  if (recordSize === 24) {
    buf.writeUIntBE(l, at, 3);
    buf.writeUIntBE(r, at + 3, 3);
  } else if (recordSize === 28) {
    // The middle byte holds the top four bits of the left record, then those of the right.
    buf.writeUIntBE(l & 0xffffff, at, 3);
    buf[at + 3] = ((l >>> 24) << 4) | (r >>> 24);
    buf.writeUIntBE(r & 0xffffff, at + 4, 3);
  } else {
    buf.writeUInt32BE(l >>> 0, at);
    buf.writeUInt32BE(r >>> 0, at + 4);
  }
}

export function createMmdbWriter(options: MmdbWriterOptions): MmdbWriter {
  const tree = new Tree();
  const data = new DataSection(new Set(options.unshared ?? []));
  const words = new Uint32Array(4);

  function insert(family: 4 | 6, first: bigint, length: number, offset: number): void {
    if (family === 4) {
      words.fill(0);
      words[3] = Number(first);
      tree.set(words, 96 + length, -(offset + 2));
    } else {
      toWords(first, words);
      tree.set(words, length, -(offset + 2));
    }
  }

  /** ::ffff:0:0/96 (IPv4-mapped) leads to the IPv4 subtree under ::/96, as MaxMind's databases do. */
  function aliasMapped(): void {
    toWords(0n, words);
    const v4root = tree.nodeAt(words, 96);
    if (v4root < 0) return;
    toWords(0xffffn << 32n, words);
    tree.set(words, 96, v4root);
  }

  function toBuffer(): Buffer {
    aliasMapped();
    // Number the nodes reachable from the root breadth first (node 0 stays the root; the alias
    // makes the tree a DAG, so a node is numbered once).
    const ids = new Int32Array(tree.count).fill(-1);
    const order: number[] = [0];
    ids[0] = 0;
    for (let k = 0; k < order.length; k++) {
      const n = order[k] as number;
      for (const c of [tree.left[n] as number, tree.right[n] as number]) {
        if (c >= 0 && ids[c] === -1) {
          ids[c] = order.length;
          order.push(c);
        }
      }
    }
    const nodeCount = order.length;
    const dataBytes = data.out.result();
    const top = nodeCount + 16 + dataBytes.length;
    const recordSize = options.recordSize ?? (top < 2 ** 24 ? 24 : top < 2 ** 28 ? 28 : 32);
    if (top >= 2 ** recordSize)
      throw new Error(`${recordSize}-bit records cannot address ${top} (nodes + data)`);
    // Spec: a record below node_count is a node, equal to it means no data, above it points
    // into the data section at (record - node_count - 16).
    const recordOf = (c: number): number =>
      c === EMPTY ? nodeCount : c >= 0 ? (ids[c] as number) : nodeCount + 16 + (-c - 2);
    const per = nodeBytes(recordSize);
    const treeBytes = Buffer.alloc(nodeCount * per + 16);
    for (let k = 0; k < nodeCount; k++) {
      const n = order[k] as number;
      writeNode(
        treeBytes,
        k * per,
        recordSize,
        recordOf(tree.left[n] as number),
        recordOf(tree.right[n] as number),
      );
    }
    const meta = new Bytes();
    meta.bytes(METADATA_MARKER);
    // libmaxminddb checks each metadata field's type, so the integers are written with theirs.
    const integers: [string, number, number][] = [
      ['binary_format_major_version', T_UINT16, 2],
      ['binary_format_minor_version', T_UINT16, 0],
      ['build_epoch', T_UINT64, options.buildEpoch],
      ['ip_version', T_UINT16, 6],
      ['node_count', T_UINT32, nodeCount],
      ['record_size', T_UINT16, recordSize],
    ];
    const others: [string, MmdbValue][] = [
      ['database_type', options.databaseType],
      ['description', { en: options.description }],
      ['languages', ['en']],
    ];
    writeControl(meta, T_MAP, integers.length + others.length);
    for (const [key, type, value] of integers) {
      writePlain(meta, key);
      writeUint(meta, type, BigInt(value));
    }
    for (const [key, value] of others) {
      writePlain(meta, key);
      writePlain(meta, value);
    }
    return Buffer.concat([treeBytes, dataBytes, meta.result()]);
  }

  return { record: (value) => data.record(value), insert, toBuffer };
}
