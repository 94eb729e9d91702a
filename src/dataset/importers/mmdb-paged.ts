/**
 * A MaxMind DB reader that keeps the file's search tree on disk: tree nodes are read with pread
 * through a bounded cache of 4 KB pages, and only the data section (the records, a quarter of a
 * DB-IP city file) is held in memory. The `maxmind` reader reads the whole file into a Buffer:
 * for the two DB-IP city files that is 134 MB resident for as long as the process lives, of
 * which 103 MB is search tree that one lookup touches 32 (IPv4) to 128 (IPv6) nodes of.
 *
 * Format: https://maxmind.github.io/MaxMind-DB/ (search tree, 16-byte separator, data section,
 * metadata after the marker `\xAB\xCD\xEFMaxMind.com`).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');
/** The metadata section is at most 128 KiB from the end of the file (spec). */
const METADATA_MAX = 128 * 1024;
const PAGE = 4096;

export interface MmdbMetadata {
  nodeCount: number;
  recordSize: number;
  ipVersion: number;
  buildEpoch: Date;
  searchTreeSize: number;
}

export interface PagedMmdb {
  metadata: MmdbMetadata;
  /** The record of `bytes` (4 or 16 bytes, big-endian) and the prefix length of its network. */
  get(bytes: readonly number[]): [unknown, number];
  close(): void;
}

/** What an extended size byte count (size 29, 30, 31: one, two, three bytes) adds to the bytes read. */
const SIZE_BASE = [0, 29, 285, 65821];

/** Decodes one MMDB data field at `offset` of `buf`; pointers are relative to `base`. */
export function decode(buf: Buffer, base: number, offset: number): { value: unknown; next: number } {
  const ctrl = buf[offset++] as number;
  let type = ctrl >> 5;
  if (type === 1) return decodePointer(buf, base, offset, ctrl);
  if (type === 0) type = 7 + (buf[offset++] as number);
  let size = ctrl & 31;
  if (size >= 29) {
    const extra = size - 28;
    size = (SIZE_BASE[extra] as number) + buf.readUIntBE(offset, extra);
    offset += extra;
  }
  return decodeValue(buf, base, type, offset, size);
}

/** A pointer (type 1) whose size bits and value start in `ctrl` and go on at `offset`. */
function decodePointer(
  buf: Buffer,
  base: number,
  offset: number,
  ctrl: number,
): { value: unknown; next: number } {
  const ss = (ctrl >> 3) & 3;
  const v = ctrl & 7;
  let p: number;
  if (ss === 0) p = (v << 8) | (buf[offset] as number);
  else if (ss === 1) p = ((v << 16) | buf.readUInt16BE(offset)) + 2048;
  else if (ss === 2) p = v * 0x1000000 + buf.readUIntBE(offset, 3) + 526336;
  else p = buf.readUInt32BE(offset);
  // A pointer's target is read where it is; the cursor moves on past the pointer.
  return { value: decode(buf, base, base + p).value, next: offset + ss + 1 };
}

/** The field of `type` and `size` whose payload starts at `offset`. */
function decodeValue(
  buf: Buffer,
  base: number,
  type: number,
  offset: number,
  size: number,
): { value: unknown; next: number } {
  switch (type) {
    case 2:
      return { value: buf.toString('utf8', offset, offset + size), next: offset + size };
    case 3:
      return { value: buf.readDoubleBE(offset), next: offset + 8 };
    case 4:
      return { value: buf.subarray(offset, offset + size), next: offset + size };
    case 5:
    case 6:
    case 9:
    case 10:
      return { value: decodeUint(buf, offset, size), next: offset + size };
    case 7:
      return decodeMap(buf, base, offset, size);
    case 8:
      return { value: decodeInt32(buf, offset, size), next: offset + size };
    case 11:
      return decodeArray(buf, base, offset, size);
    case 14:
      return { value: size !== 0, next: offset };
    case 15:
      return { value: buf.readFloatBE(offset), next: offset + 4 };
    default:
      throw new Error(`MMDB: unknown data type ${type}`);
  }
}

/** An unsigned integer of `size` bytes: a number up to 6 bytes, decimal text above. */
function decodeUint(buf: Buffer, offset: number, size: number): number | string {
  let n = 0n;
  for (let k = 0; k < size; k++) n = (n << 8n) | BigInt(buf[offset + k] as number);
  return size <= 6 ? Number(n) : n.toString();
}

/** A signed 32-bit integer of `size` bytes (shorter ones are positive). */
function decodeInt32(buf: Buffer, offset: number, size: number): number {
  let n = 0;
  for (let k = 0; k < size; k++) n = (n << 8) | (buf[offset + k] as number);
  return size === 4 ? n | 0 : n;
}

function decodeMap(
  buf: Buffer,
  base: number,
  offset: number,
  size: number,
): { value: unknown; next: number } {
  const out: Record<string, unknown> = {};
  let at = offset;
  for (let k = 0; k < size; k++) {
    const key = decode(buf, base, at);
    const value = decode(buf, base, key.next);
    out[String(key.value)] = value.value;
    at = value.next;
  }
  return { value: out, next: at };
}

function decodeArray(
  buf: Buffer,
  base: number,
  offset: number,
  size: number,
): { value: unknown; next: number } {
  const out: unknown[] = [];
  let at = offset;
  for (let k = 0; k < size; k++) {
    const item = decode(buf, base, at);
    out.push(item.value);
    at = item.next;
  }
  return { value: out, next: at };
}

function readAt(fd: number, position: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, out, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return out.subarray(0, done);
}

/**
 * Opens `file`. `cachePages` bounds the tree pages kept (default 2,048: 8 MB); the pages near
 * the root, read by every lookup, stay in it.
 */
export function openPagedMmdb(file: string, options: { cachePages?: number } = {}): PagedMmdb {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const tailStart = Math.max(0, size - METADATA_MAX);
    const tail = readAt(fd, tailStart, size - tailStart);
    const marker = tail.lastIndexOf(METADATA_MARKER);
    if (marker < 0) throw new Error(`${file}: not a MaxMind DB (no metadata marker)`);
    const metaAt = marker + METADATA_MARKER.length;
    const meta = decode(tail, metaAt, metaAt).value as Record<string, unknown>;
    const nodeCount = Number(meta.node_count);
    const recordSize = Number(meta.record_size);
    if (recordSize !== 24 && recordSize !== 28 && recordSize !== 32) {
      throw new Error(`${file}: unsupported record size ${recordSize}`);
    }
    const nodeBytes = recordSize / 4;
    const searchTreeSize = nodeCount * nodeBytes;
    const metadata: MmdbMetadata = {
      nodeCount,
      recordSize,
      ipVersion: Number(meta.ip_version),
      buildEpoch: new Date(Number(meta.build_epoch) * 1000),
      searchTreeSize,
    };
    // The data section, whole: between the separator after the tree and the metadata marker.
    const dataStart = searchTreeSize + 16;
    const data = readAt(fd, dataStart, tailStart + marker - dataStart);

    const maxPages = options.cachePages ?? 2048;
    const pages = new Map<number, Buffer>();
    const page = (k: number): Buffer => {
      let p = pages.get(k);
      if (p) return p;
      p = readAt(fd, k * PAGE, PAGE);
      if (pages.size >= maxPages) pages.delete(pages.keys().next().value as number);
      pages.set(k, p);
      return p;
    };
    const scratch = Buffer.alloc(8);
    /** The node's bytes, into `scratch` (a node may straddle two pages). */
    const nodeAt = (node: number): Buffer => {
      const at = node * nodeBytes;
      const k = Math.floor(at / PAGE);
      const o = at - k * PAGE;
      const p = page(k);
      if (o + nodeBytes <= p.length) return p.subarray(o, o + nodeBytes);
      const first = p.length - o;
      p.copy(scratch, 0, o);
      page(k + 1).copy(scratch, first, 0, nodeBytes - first);
      return scratch;
    };
    const record = (node: number, right: boolean): number => {
      const b = nodeAt(node);
      if (recordSize === 24) return right ? b.readUIntBE(3, 3) : b.readUIntBE(0, 3);
      if (recordSize === 28) {
        return right
          ? ((b[3] as number) & 0x0f) * 0x1000000 + b.readUIntBE(4, 3)
          : (((b[3] as number) & 0xf0) >> 4) * 0x1000000 + b.readUIntBE(0, 3);
      }
      return right ? b.readUInt32BE(4) : b.readUInt32BE(0);
    };
    // IPv4 addresses in an IPv6 tree sit under ::/96 (96 left turns from the root).
    let ipv4Start = 0;
    if (metadata.ipVersion === 6) {
      for (let i = 0; i < 96 && ipv4Start < nodeCount; i++) ipv4Start = record(ipv4Start, false);
    }

    return {
      metadata,
      get(bytes) {
        const bits = bytes.length * 8;
        let node = bytes.length === 4 ? ipv4Start : 0;
        let depth = 0;
        for (; depth < bits && node < nodeCount; depth++) {
          const bit = ((bytes[depth >> 3] as number) >> (7 - (depth & 7))) & 1;
          node = record(node, bit === 1);
        }
        if (node <= nodeCount) return [null, depth];
        return [decode(data, 0, node - nodeCount - 16).value, depth];
      },
      close() {
        closeSync(fd);
      },
    };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}
