import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { FieldTable } from './field-table.ts';
import { RecordRows } from './record-cursor.ts';
import {
  MAX_RUN_SIZE,
  mergeRecordRuns,
  type RecordBatch,
  RecordStream,
  sortRecordRun,
} from './record-runs.ts';
import type { CanonicalRow } from './row.ts';
import { RecordWriter } from './row-record.ts';

export type RowSource = Iterable<unknown> | AsyncIterable<unknown>;

export interface SortOptions {
  /**
   * Directory for spilled sorted runs. With it, memory stays bounded by `runSize` rows whatever the
   * input size (external merge sort); without it, all rows are sorted in memory.
   */
  spillDir?: string;
  /** Rows held in memory before a sorted run is spilled. */
  runSize?: number;
  /**
   * With it, a row that is not a valid FeedRow is skipped and reported here (the reason, without
   * the row's values); without it, such a row throws and the sort stops.
   */
  onInvalid?: (reason: string) => void;
}

const DEFAULT_RUN_SIZE = 100_000;

/**
 * The run and scratch buffers of the last sort, for the next one: a buffer written for the first
 * time costs a page fault per 4 KB, which in the feed build cost more than the copies into it.
 */
const spare: Buffer[] = [];
/** Spare buffers are let go after this long without a sort. */
const SPARE_MS = 10_000;
let spareTimer: NodeJS.Timeout | null = null;

/**
 * Validates, normalizes and sorts rows into canonical order, merging rows with the same network:
 * the first row in total order wins, with first_seen widened to the earliest and last_seen to the latest.
 */
export async function* sortFeedRows(
  rows: RowSource,
  options: SortOptions = {},
): AsyncGenerator<CanonicalRow> {
  for await (const batch of sortFeedRecords(rows, options)) yield* recordBatchRows(batch);
}

/** The rows of a batch of sortFeedRecords. */
function recordBatchRows(batch: RecordBatch): CanonicalRow[] {
  const { bufs, offsets } = batch;
  const reader = new RecordRows(batch.fields);
  const rows: CanonicalRow[] = new Array(offsets.length);
  for (let i = 0; i < offsets.length; i++) rows[i] = reader.row(bufs[i] as Buffer, offsets[i] as number);
  return rows;
}

/**
 * sortFeedRows as binary records (row-record.ts), one per network, in batches of a few thousand.
 * Rows are taken into runs, each sorted by a typed-array sort of key heads (record-runs.ts) and
 * spilled to `spillDir` (or kept in memory without it), then merged. A batch is the consumer's.
 */
export async function* sortFeedRecords(
  rows: RowSource,
  options: SortOptions = {},
): AsyncGenerator<RecordBatch> {
  const runs = new RunCollector(options);
  try {
    // A plain iterable is read without an await per row (for await wraps each row in a promise).
    if (Symbol.iterator in rows) {
      for (const input of rows) if (runs.take(input)) await runs.endRun();
    } else for await (const input of rows) if (runs.take(input)) await runs.endRun();
    yield* mergeRecordRuns(await runs.finish(), runs.fields);
  } finally {
    await runs.cleanup();
  }
}

/**
 * Rows taken as records into runs of at most `runSize`, each sorted when full and spilled to
 * `spillDir` (or kept in memory without it); `finish` gives every run to merge.
 */
class RunCollector {
  /** The rows' text fields, numbered for this sort's records. */
  readonly fields = new FieldTable();
  private run = new RecordWriter(this.fields, spare.pop());
  /** Where a run is put in key order to be spilled. */
  private scratch = spare.pop() ?? Buffer.alloc(0);
  private readonly runs: RecordStream[] = [];
  private spillRoot: string | null = null;
  private readonly runSize: number;

  constructor(private readonly options: SortOptions) {
    this.runSize = options.spillDir
      ? Math.min(MAX_RUN_SIZE, Math.max(1, options.runSize ?? DEFAULT_RUN_SIZE))
      : MAX_RUN_SIZE;
  }

  /** Takes one input row (an invalid one is reported, with onInvalid, or thrown); true when the run is full. */
  take(input: unknown): boolean {
    const onInvalid = this.options.onInvalid;
    if (!onInvalid) this.run.add(input);
    else {
      try {
        this.run.add(input);
      } catch (err) {
        onInvalid(err instanceof Error ? err.message : String(err));
        return false;
      }
    }
    return this.run.count >= this.runSize;
  }

  async endRun(): Promise<void> {
    const run = this.run;
    const sorted = sortRecordRun(run);
    const spillDir = this.options.spillDir;
    if (!spillDir) {
      this.runs.push(RecordStream.memory(run.buf, sorted));
      this.run = new RecordWriter(this.fields);
      return;
    }
    this.spillRoot ??= await mkdtemp(path.join(spillDir, '.sort-'));
    const file = path.join(this.spillRoot, `run-${this.runs.length}.bin`);
    if (this.scratch.length < run.pos) this.scratch = Buffer.allocUnsafe(run.buf.length);
    this.runs.push(await RecordStream.spill(run.buf, sorted, run.pos, file, this.scratch));
    run.clear();
  }

  /** Every run to merge (the last one kept in memory). */
  async finish(): Promise<RecordStream[]> {
    if (this.run.count > 0 || this.runs.length === 0)
      this.runs.push(RecordStream.memory(this.run.buf, sortRecordRun(this.run)));
    return this.runs;
  }

  /** Closes and removes the spilled runs. */
  async cleanup(): Promise<void> {
    for (const run of this.runs) await run.close();
    // Every batch is handed out and read by now: the buffers go to the next sort, if one starts soon.
    spare.length = 0;
    spare.push(this.run.buf, this.scratch);
    if (spareTimer) clearTimeout(spareTimer);
    spareTimer = setTimeout(() => {
      spare.length = 0;
    }, SPARE_MS).unref();
    if (this.spillRoot) await rm(this.spillRoot, { recursive: true, force: true });
  }
}
