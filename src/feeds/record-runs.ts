/**
 * Sorted runs of binary records (row-record.ts) for the feed row sort (sort-rows.ts): a run is
 * ordered by a native BigUint64Array sort of words holding each record's key head above its
 * index, kept in memory or spilled to a file as it is, and runs are merged record by record with
 * the same network's records merged into one row (the first in total order, its seen dates widened).
 */

import { type FileHandle, open } from 'node:fs/promises';
import { endianness } from 'node:os';
import type { FieldTable } from './field-table.ts';
import { RecordRows } from './record-cursor.ts';
import { type CanonicalRow, compareRows } from './row.ts';
import { compareRecordKeys, RecordWriter, recordHead, recordLength } from './row-record.ts';

/** A run's record index takes the low 21 bits of its sort word. */
const INDEX_BITS = 21;
/** The most records one run may hold. */
export const MAX_RUN_SIZE = 2 ** INDEX_BITS;
/** Index of the low 32-bit half of a 64-bit word in a Uint32Array over it. */
const LOW = endianness() === 'LE' ? 0 : 1;
const READ_CHUNK = 1 << 20;
/** Deduplicated records are handed out in batches of this many. */
const BATCH_ROWS = 4096;

/** The offsets of the run's records, in key order. */
export function sortRecordRun(run: RecordWriter): Uint32Array {
  const n = run.count;
  const { buf, offsets } = run;
  const words = new BigUint64Array(n);
  const half = new Uint32Array(words.buffer);
  const low = 2 ** (32 - INDEX_BITS);
  for (let i = 0; i < n; i++) {
    const head = recordHead(buf, offsets[i] as number);
    half[2 * i + 1 - LOW] = Math.floor(head / low);
    half[2 * i + LOW] = (head % low) * MAX_RUN_SIZE + i;
  }
  words.sort();
  const order = new Uint32Array(n);
  const mask = MAX_RUN_SIZE - 1;
  for (let i = 0; i < n; i++) order[i] = (half[2 * i + LOW] as number) & mask;
  // An IPv6 head is only the start of the key (IPv4 heads are whole keys): ties are ordered by key.
  let i = 0;
  while (i < n) {
    const hi = half[2 * i + 1 - LOW] as number;
    const lo = (half[2 * i + LOW] as number) >>> INDEX_BITS;
    let j = i + 1;
    while (j < n && half[2 * j + 1 - LOW] === hi && (half[2 * j + LOW] as number) >>> INDEX_BITS === lo) j++;
    if (j - i > 1 && hi >= 2 ** 31) {
      const group = Array.from(order.subarray(i, j)).sort((a, b) =>
        compareRecordKeys(buf, offsets[a] as number, buf, offsets[b] as number),
      );
      order.set(group, i);
    }
    i = j;
  }
  for (let k = 0; k < n; k++) order[k] = offsets[order[k] as number] as number;
  return order;
}

/** The records at `sorted` (offsets into `buf`) copied, in that order, into `out` (of at least `size` bytes). */
function gatherRecords(buf: Buffer, sorted: Uint32Array, out: Buffer): Buffer {
  if (buf.byteOffset % 4 !== 0 || out.byteOffset % 4 !== 0) {
    for (let k = 0, p = 0; k < sorted.length; k++) {
      const o = sorted[k] as number;
      p += buf.copy(out, p, o, o + recordLength(buf, o));
    }
    return out;
  }
  // Records are whole 32-bit words (row-record.ts): a word loop, where a copy call per record costs more.
  const src = new Uint32Array(buf.buffer, buf.byteOffset, buf.length >>> 2);
  const dst = new Uint32Array(out.buffer, out.byteOffset, out.length >>> 2);
  for (let k = 0, q = 0; k < sorted.length; k++) {
    const o = sorted[k] as number;
    const w = o >>> 2;
    const end = w + (recordLength(buf, o) >>> 2);
    for (let i = w; i < end; i++) dst[q++] = src[i] as number;
  }
  return out;
}

/**
 * The records of a run, the one at `pos` first: a run kept in memory (its buffer and the offsets
 * of its records in key order) or spilled to a file and read back in large chunks (`fill`).
 */
export class RecordStream {
  pos = 0;
  private end = 0;
  private index = 0;
  private fh: FileHandle | null = null;
  private done = false;

  private constructor(
    public buf: Buffer,
    private readonly order: Uint32Array | null,
    private readonly file: string | null,
  ) {}

  /** A run in memory: `buf` and its records' offsets in key order (`buf` is the stream's from now on). */
  static memory(buf: Buffer, order: Uint32Array): RecordStream {
    const run = new RecordStream(buf, order, null);
    run.pos = order[0] ?? 0;
    return run;
  }

  /** Writes a run to `file` in key order; its records read back from there. */
  static async spill(
    buf: Buffer,
    order: Uint32Array,
    size: number,
    file: string,
    scratch: Buffer,
  ): Promise<RecordStream> {
    const fh = await open(file, 'wx');
    try {
      await fh.write(gatherRecords(buf, order, scratch), 0, size);
    } finally {
      await fh.close();
    }
    return new RecordStream(Buffer.alloc(0), null, file);
  }

  /** Whether a whole record starts at `pos`. */
  ready(): boolean {
    if (this.order) return this.index < this.order.length;
    const left = this.end - this.pos;
    return left >= 2 && left >= recordLength(this.buf, this.pos);
  }

  /** `pos` to the next record (which may need `fill`). */
  advance(): void {
    if (this.order) this.pos = this.order[++this.index] ?? 0;
    else this.pos += recordLength(this.buf, this.pos);
  }

  /** Reads more of a spilled run when no whole record is at `pos`; false at the run's end. */
  async fill(): Promise<boolean> {
    if (this.ready()) return true;
    if (this.order || this.done) return false;
    this.fh ??= await open(this.file as string, 'r');
    // A new buffer each time: batches handed out still point into the old one.
    const rest = this.end - this.pos;
    const next = Buffer.allocUnsafe(Math.max(READ_CHUNK, rest * 2));
    this.buf.copy(next, 0, this.pos, this.end);
    const { bytesRead } = await this.fh.read(next, rest, next.length - rest, null);
    this.buf = next;
    this.pos = 0;
    this.end = rest + bytesRead;
    if (bytesRead === 0) {
      this.done = true;
      await this.close();
    }
    return this.fill();
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    await fh?.close();
  }
}

/** The index of the run whose record comes first, or -1 when every run is used up. */
function firstRun(runs: RecordStream[], heads: number[]): number {
  let best = -1;
  let min = 0;
  for (let i = 0; i < runs.length; i++) {
    const h = heads[i] as number;
    if (h < 0) continue;
    if (best === -1 || h < min) {
      best = i;
      min = h;
    } else if (h === min) {
      const a = runs[i] as RecordStream;
      const b = runs[best] as RecordStream;
      if (compareRecordKeys(a.buf, a.pos, b.buf, b.pos) < 0) best = i;
    }
  }
  return best;
}

/** Rows of one network, in records: the first in total order, its seen dates widened to the group's. */
function resolveGroup(rows: CanonicalRow[]): CanonicalRow {
  let first = rows[0] as CanonicalRow;
  let firstSeen = first.row.first_seen;
  let lastSeen = first.row.last_seen;
  for (const c of rows) {
    if (compareRows(c, first) < 0) first = c;
    if (c.row.first_seen < firstSeen) firstSeen = c.row.first_seen;
    if (c.row.last_seen > lastSeen) lastSeen = c.row.last_seen;
  }
  first.row.first_seen = firstSeen;
  first.row.last_seen = lastSeen;
  return first;
}

/**
 * Records of networks in key order, one per network: where each lies (a run's buffer, or `merged`
 * for a row merged from several records), not a copy. A run's buffers are not reused once handed out.
 */
export interface RecordBatch {
  bufs: Buffer[];
  offsets: number[];
  /** The text fields the records number (record-cursor.ts reads them with it). */
  fields: FieldTable;
}

/** Sorted records taken one at a time into batches, one record per network. */
class NetworkBatch implements RecordBatch {
  bufs: Buffer[] = [];
  offsets: number[] = [];
  /** Rows of the last network when it has more than one record. */
  private group: CanonicalRow[] | null = null;
  private merged: RecordWriter | null = null;
  private readonly reader: RecordRows;

  constructor(
    readonly fields: FieldTable,
    private readonly fresh: () => RecordWriter,
  ) {
    this.reader = new RecordRows(fields);
  }

  /** Takes the record at `o`; true when the batch is full (the record is not taken then). */
  push(buf: Buffer, o: number): boolean {
    const last = this.offsets.length - 1;
    const lastBuf = this.bufs[last] as Buffer;
    if (last >= 0 && compareRecordKeys(buf, o, lastBuf, this.offsets[last] as number) === 0) {
      this.group ??= [this.reader.row(lastBuf, this.offsets[last] as number)];
      this.group.push(this.reader.row(buf, o));
      return false;
    }
    this.end();
    if (last + 1 >= BATCH_ROWS) return true;
    this.bufs.push(buf);
    this.offsets.push(o);
    return false;
  }

  /** The last network's records merged into its row. */
  end(): void {
    if (!this.group) return;
    this.merged ??= this.fresh();
    const at = this.merged.pos;
    this.merged.addCanonical(resolveGroup(this.group));
    this.bufs[this.bufs.length - 1] = this.merged.buf;
    this.offsets[this.offsets.length - 1] = at;
    this.group = null;
  }
}

/** The runs merged into key order, one record per network, in batches. */
export async function* mergeRecordRuns(
  runs: RecordStream[],
  fields: FieldTable,
): AsyncGenerator<RecordBatch> {
  const heads: number[] = [];
  for (const run of runs) heads.push((await run.fill()) ? recordHead(run.buf, run.pos) : -1);
  const fresh = () => new RecordWriter(fields, 1 << 16);
  let batch = new NetworkBatch(fields, fresh);
  for (;;) {
    const i = firstRun(runs, heads);
    if (i === -1) break;
    const run = runs[i] as RecordStream;
    if (batch.push(run.buf, run.pos)) {
      yield batch;
      batch = new NetworkBatch(fields, fresh);
      continue; // the same record again, into the new batch
    }
    run.advance();
    if (!run.ready() && !(await run.fill())) heads[i] = -1;
    else heads[i] = recordHead(run.buf, run.pos);
  }
  batch.end();
  if (batch.offsets.length > 0) yield batch;
}
