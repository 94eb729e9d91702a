/**
 * A MaxMind DB writer (MaxMind DB File Format Specification 2.0): a binary search tree over the
 * 128-bit address space, a data section (mmdb-data.ts) and a metadata map. No npm package writes
 * MMDB (MaxMind's own writers are Go and Perl), so this is ours, kept to what the export needs:
 * IPv6 trees with IPv4 under ::/96 and ::ffff:0:0/96 leading to the same subtree.
 *
 * The tree is not built by inserting networks from the root (a node object or two array slots per
 * node, held to the end): the caller answers, for a prefix, whether all its addresses share one
 * record (`Classify`), and the writer walks the address space depth first, numbering nodes in
 * that order. A node's number is known when it is made, so nodes go to a temp file in 1 MB runs;
 * only the open path (at most 128 nodes) can still change after a run is written, and those
 * changes are applied when the temp file is copied into the database. Memory stays flat however
 * many networks there are; the data section also goes to a temp file as it is written.
 */
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import {
  Bytes,
  DataSection,
  type MmdbMap,
  type MmdbPointer,
  type MmdbValue,
  T_MAP,
  T_UINT16,
  T_UINT32,
  T_UINT64,
  writeControl,
  writePlain,
  writeUint,
} from './mmdb-data.ts';

export { type MmdbMap, MmdbPointer, type MmdbValue } from './mmdb-data.ts';

/** `Classify` answers: the prefix's addresses differ (split it), or none has a record. */
export const SPLIT = -2;
export const EMPTY = -1;

/**
 * For the prefix of `depth` bits in `words` (four big-endian words, the bits past `depth` zero):
 * SPLIT, EMPTY, or the data offset (from `record`) every address of it has. Called in address
 * order, depth first; a single address (depth 128) is never SPLIT.
 */
export type Classify = (words: Uint32Array, depth: number) => number;

export interface MmdbWriterOptions {
  /** Where the database is written; `<file>.tree-tmp` and `<file>.data-tmp` exist while it is. */
  file: string;
  databaseType: string;
  /** Bits per tree record; by default the smallest of 24, 28 and 32 that can address the file. */
  recordSize?: 24 | 28 | 32;
}

/** The metadata known once the data is: what the file holds and when it was built. */
export interface MmdbMetadata {
  description: string;
  /** Seconds since the epoch (metadata build_epoch). */
  buildEpoch: number;
}

export interface MmdbWriter {
  /** Writes a value to the data section and returns its offset (its own copy: use it as often as needed). */
  record(value: MmdbValue): number;
  /** The offset of an equal string, map or array written by `shared` before, or of this one, written now. */
  shared(value: string | MmdbMap | readonly MmdbValue[]): number;
  /** Writes a map given as entries (a key may be a pointer to a string); its offset. */
  entries(list: readonly (readonly [string | MmdbPointer, MmdbValue])[]): number;
  /** Walks the address space with `classify`, writes the file and closes the writer. */
  finish(classify: Classify, metadata: MmdbMetadata): { nodes: number; networks: number; bytes: number };
  /** Removes the temp files (after a failure; `finish` removes them itself). */
  abort(): void;
}

const METADATA_MARKER = Buffer.from([0xab, 0xcd, 0xef, ...Buffer.from('MaxMind.com')]);

/** Record values in the temp file: a node number, no data, or a data offset plus DATA. */
const RAW_EMPTY = 0xffffffff;
const DATA = 0x80000000;
/** Nodes per run written to the temp tree file. */
const RUN = 1 << 17;

/** Nodes numbered depth first and written in runs; later changes to written ones kept aside. */
class TreeFile {
  private run = new Uint32Array(RUN * 2);
  /** The number of the first node in `run`, and of the next node made. */
  private base = 0;
  count = 0;
  /** Records that point at data. */
  networks = 0;
  private readonly late = new Map<number, number>();

  constructor(private readonly fd: number) {}

  make(): number {
    if (this.count - this.base === RUN) this.flush();
    return this.count++;
  }

  /** Drops the node made last (its two halves turned out to be the same). */
  drop(): void {
    this.count--;
  }

  set(node: number, left: number, right: number): void {
    if (left >= DATA && left !== RAW_EMPTY) this.networks++;
    if (right >= DATA && right !== RAW_EMPTY) this.networks++;
    if (node >= this.base) {
      this.run[(node - this.base) * 2] = left;
      this.run[(node - this.base) * 2 + 1] = right;
    } else {
      this.late.set(node * 2, left);
      this.late.set(node * 2 + 1, right);
    }
  }

  flush(): void {
    const bytes = Buffer.from(this.run.buffer, 0, (this.count - this.base) * 8);
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at, bytes.length - at);
    this.base = this.count;
  }

  /** Reads the nodes back in runs with the late changes applied: (first node, records). */
  *readBack(): Generator<[number, Uint32Array]> {
    const bytes = Buffer.from(this.run.buffer);
    for (let first = 0; first < this.count; first += RUN) {
      const n = Math.min(RUN, this.count - first);
      for (let got = 0; got < n * 8; ) got += readSync(this.fd, bytes, got, n * 8 - got, first * 8 + got);
      for (let k = 0; k < n * 2; k++) {
        const late = this.late.get(first * 2 + k);
        if (late !== undefined) this.run[k] = late;
      }
      yield [first, this.run.subarray(0, n * 2)];
    }
  }
}

/** On the path to ::/96 or ::ffff:0:0/96 (the IPv4 subtree and its alias): always split. */
function onIpv4Path(words: Uint32Array, depth: number): boolean {
  if (depth >= 96 || words[0] !== 0 || words[1] !== 0) return false;
  if (depth <= 64) return true;
  const mask = (0xffffffff << (96 - depth)) >>> 0;
  const w = ((words[2] as number) & mask) >>> 0;
  return w === 0 || w === (0xffff & mask) >>> 0;
}

/** The depth-first walk: each prefix's record value (a node number or a RAW_EMPTY/DATA value). */
function walk(tree: TreeFile, classify: Classify): void {
  const words = new Uint32Array(4);
  let ipv4 = RAW_EMPTY;
  const visit = (depth: number): number => {
    if (depth === 96 && words[0] === 0 && words[1] === 0) {
      if (words[2] === 0xffff) return ipv4;
      if (words[2] === 0) {
        ipv4 = prefix(depth);
        return ipv4;
      }
    }
    return prefix(depth);
  };
  const prefix = (depth: number): number => {
    let r = classify(words, depth);
    if (onIpv4Path(words, depth)) r = SPLIT;
    if (r !== SPLIT) return r === EMPTY ? RAW_EMPTY : DATA + r;
    if (depth === 128) throw new Error('MMDB writer: a single address cannot be split');
    const node = tree.make();
    const w = depth >>> 5;
    const bit = 1 << (31 - (depth & 31));
    const left = visit(depth + 1);
    words[w] = ((words[w] as number) | bit) >>> 0;
    const right = visit(depth + 1);
    words[w] = ((words[w] as number) & ~bit) >>> 0;
    // Both halves the same record: no node (it is the one made last, as records make none).
    if (left === right && left >= DATA) {
      tree.drop();
      return left;
    }
    tree.set(node, left, right);
    return node;
  };
  visit(0);
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

function writeAll(fd: number, buf: Uint8Array): void {
  for (let at = 0; at < buf.length; ) at += writeSync(fd, buf, at, buf.length - at);
}

function metadata(options: MmdbWriterOptions & MmdbMetadata, nodeCount: number, recordSize: number): Buffer {
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
    writeUint(meta, type, value);
  }
  for (const [key, value] of others) {
    writePlain(meta, key);
    writePlain(meta, value);
  }
  return meta.result();
}

/** The record size that addresses `top` (nodes + separator + data): the smallest of 24, 28, 32 bits, or the one asked for. */
function recordSizeFor(top: number, asked: 24 | 28 | 32 | undefined): 24 | 28 | 32 {
  const recordSize = asked ?? (top < 2 ** 24 ? 24 : top < 2 ** 28 ? 28 : 32);
  if (top >= 2 ** recordSize)
    throw new Error(`${recordSize}-bit records cannot address ${top} (nodes + data)`);
  return recordSize;
}

/** Writes the search tree's nodes to `out` in the file's record size; returns the bytes written. */
function writeTree(out: number, tree: TreeFile, nodeCount: number, recordSize: 24 | 28 | 32): number {
  // Spec: a record below node_count is a node, equal to it means no data, above it points
  // into the data section at (record - node_count - 16).
  const recordOf = (raw: number): number =>
    raw === RAW_EMPTY ? nodeCount : raw >= DATA ? nodeCount + 16 + (raw - DATA) : raw;
  const per = (recordSize * 2) / 8;
  const buf = Buffer.alloc(RUN * per);
  let bytes = 0;
  for (const [, run] of tree.readBack()) {
    const n = run.length / 2;
    for (let k = 0; k < n; k++)
      writeNode(buf, k * per, recordSize, recordOf(run[k * 2] as number), recordOf(run[k * 2 + 1] as number));
    writeAll(out, buf.subarray(0, n * per));
    bytes += n * per;
  }
  return bytes;
}

/** Copies the `dataBytes` of the data section file to `out`. */
function copyData(out: number, dataFd: number, dataBytes: number): void {
  const chunk = Buffer.alloc(1 << 22);
  for (let at = 0; at < dataBytes; ) {
    const n = readSync(dataFd, chunk, 0, Math.min(chunk.length, dataBytes - at), at);
    writeAll(out, chunk.subarray(0, n));
    at += n;
  }
}

export function createMmdbWriter(options: MmdbWriterOptions): MmdbWriter {
  const treeFile = `${options.file}.tree-tmp`;
  const dataFile = `${options.file}.data-tmp`;
  const treeFd = openSync(treeFile, 'w+');
  const dataFd = openSync(dataFile, 'w+');
  const data = new DataSection(dataFd);
  let open = true;

  function abort(): void {
    if (!open) return;
    open = false;
    closeSync(treeFd);
    closeSync(dataFd);
    rmSync(treeFile, { force: true });
    rmSync(dataFile, { force: true });
  }

  function finish(
    classify: Classify,
    about: MmdbMetadata,
  ): { nodes: number; networks: number; bytes: number } {
    try {
      const tree = new TreeFile(treeFd);
      walk(tree, classify);
      tree.flush();
      data.out.flush();
      const nodeCount = tree.count;
      const dataBytes = data.out.length;
      const recordSize = recordSizeFor(nodeCount + 16 + dataBytes, options.recordSize);
      const out = openSync(options.file, 'w');
      try {
        const bytes = writeTree(out, tree, nodeCount, recordSize);
        writeAll(out, Buffer.alloc(16));
        copyData(out, dataFd, dataBytes);
        const meta = metadata({ ...options, ...about }, nodeCount, recordSize);
        writeAll(out, meta);
        return { nodes: nodeCount, networks: tree.networks, bytes: bytes + 16 + dataBytes + meta.length };
      } finally {
        closeSync(out);
      }
    } finally {
      abort();
    }
  }

  return {
    record: (value) => data.write(value),
    shared: (value) => data.shared(value),
    entries: (list) => data.entries(list),
    finish,
    abort,
  };
}
