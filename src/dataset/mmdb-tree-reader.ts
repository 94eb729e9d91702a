/**
 * Another MaxMind DB's search tree, read node by node for a walk over it (the export walks the
 * DB-IP city files beside the snapshot). Nodes are read through a 4 MB window that moves forward:
 * a walk in address order asks for nodes in ascending order when the file numbers them depth
 * first, as DB-IP's files (and ours) do; any other order is still answered, with more reads.
 * The data section is read whole (a quarter of a DB-IP file) and decoded by record.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { decode, openPagedMmdb } from './importers/mmdb-paged.ts';

export interface MmdbTreeReader {
  nodeCount: number;
  /** 32 (IPv4 file) or 128. */
  bits: 32 | 128;
  /** The left (`right` false) or right record of a node: a node, nodeCount (no data), or data. */
  record(node: number, right: boolean): number;
  /** The value a data record (above nodeCount) points at. */
  valueOf(record: number): unknown;
  close(): void;
}

const WINDOW = 4 << 20;

export function openMmdbTree(file: string): MmdbTreeReader {
  const paged = openPagedMmdb(file, { cachePages: 1 });
  const { nodeCount, recordSize, ipVersion, searchTreeSize } = paged.metadata;
  paged.close();
  const fd = openSync(file, 'r');
  const readAt = (buf: Buffer, position: number): number => {
    let done = 0;
    while (done < buf.length) {
      const n = readSync(fd, buf, done, buf.length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  };
  const nodeBytes = recordSize / 4;
  // The data section runs from after the 16-byte separator to the metadata marker, which is in
  // the file's last 128 KiB: read to the end, the marker and metadata come along, never decoded.
  const dataStart = searchTreeSize + 16;
  const end = fstatSync(fd).size;
  const data = Buffer.alloc(end - dataStart);
  readAt(data, dataStart);
  const window = Buffer.alloc(WINDOW - (WINDOW % nodeBytes));
  let first = 0;
  let count = 0;
  const record = (node: number, right: boolean): number => {
    if (node < first || node >= first + count) {
      first = node;
      count = Math.floor(readAt(window, node * nodeBytes) / nodeBytes);
    }
    const at = (node - first) * nodeBytes;
    const b = window;
    if (recordSize === 24) return b.readUIntBE(at + (right ? 3 : 0), 3);
    if (recordSize === 28) {
      const middle = b[at + 3] as number;
      return right
        ? (middle & 0x0f) * 0x1000000 + b.readUIntBE(at + 4, 3)
        : (middle >> 4) * 0x1000000 + b.readUIntBE(at, 3);
    }
    return b.readUInt32BE(at + (right ? 4 : 0));
  };
  return {
    nodeCount,
    bits: ipVersion === 4 ? 32 : 128,
    record,
    valueOf: (r) => decode(data, 0, r - nodeCount - 16).value,
    close: () => closeSync(fd),
  };
}
