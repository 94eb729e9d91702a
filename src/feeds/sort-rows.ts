import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { type CanonicalRow, canonicalFromKey, canonicalizeRow, compareRows } from './row.ts';
import type { FeedRow } from './types.ts';

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
const WRITE_BATCH = 1 << 16;
const READ_CHUNK = 1 << 20;

/**
 * Validates, normalizes and sorts rows into canonical order, merging rows with the same network:
 * the first row in total order wins, with first_seen widened to the earliest and last_seen to the latest.
 */
export async function* sortFeedRows(
  rows: RowSource,
  options: SortOptions = {},
): AsyncGenerator<CanonicalRow> {
  const runSize = Math.max(1, options.runSize ?? DEFAULT_RUN_SIZE);
  let buffer: CanonicalRow[] = [];
  const runs: string[] = [];
  let spillRoot: string | null = null;
  try {
    for await (const input of rows) {
      if (options.onInvalid) {
        let row: CanonicalRow;
        try {
          row = canonicalizeRow(input);
        } catch (err) {
          options.onInvalid(err instanceof Error ? err.message : String(err));
          continue;
        }
        buffer.push(row);
      } else buffer.push(canonicalizeRow(input));
      if (options.spillDir && buffer.length >= runSize) {
        spillRoot ??= await mkdtemp(path.join(options.spillDir, '.sort-'));
        runs.push(await spillRun(buffer, path.join(spillRoot, `run-${runs.length}.tsv`)));
        buffer = [];
      }
    }
    if (runs.length === 0) {
      buffer.sort(compareRows);
      yield* dedupe(buffer);
      return;
    }
    if (spillRoot && buffer.length > 0) {
      runs.push(await spillRun(buffer, path.join(spillRoot, `run-${runs.length}.tsv`)));
    }
    buffer = [];
    yield* dedupe(mergeRuns(runs));
  } finally {
    if (spillRoot) await rm(spillRoot, { recursive: true, force: true });
  }
}

async function spillRun(buffer: CanonicalRow[], file: string): Promise<string> {
  buffer.sort(compareRows);
  const fh = await open(file, 'wx');
  try {
    let chunk = '';
    for (const c of buffer) {
      chunk += `${c.key}\t${JSON.stringify(c.row)}\n`;
      if (chunk.length >= WRITE_BATCH) {
        await fh.write(chunk);
        chunk = '';
      }
    }
    if (chunk) await fh.write(chunk);
  } finally {
    await fh.close();
  }
  return file;
}

/**
 * Reads a run file in large chunks and hands out whole lines from a buffer: the merge awaits
 * only when a run's buffer is used up, not once per row (readline's async iterator did).
 */
class RunReader {
  private readonly chunks: AsyncIterator<Buffer | string>;
  private lines: string[] = [];
  private index = 0;
  private rest = '';
  private done = false;

  constructor(file: string) {
    this.chunks = createReadStream(file, { highWaterMark: READ_CHUNK, encoding: 'utf8' })[
      Symbol.asyncIterator
    ]();
  }

  /** The next row, or null at the end of the run. */
  async next(): Promise<CanonicalRow | null> {
    while (this.index >= this.lines.length) {
      if (this.done) return null;
      const next = await this.chunks.next();
      if (next.done) {
        this.done = true;
        this.lines = this.rest ? [this.rest] : [];
        this.rest = '';
      } else {
        const parts = (this.rest + String(next.value)).split('\n');
        this.rest = parts.pop() ?? '';
        this.lines = parts;
      }
      this.index = 0;
    }
    return parseRunLine(this.lines[this.index++] as string);
  }
}

function parseRunLine(line: string): CanonicalRow {
  const tab = line.indexOf('\t');
  return canonicalFromKey(JSON.parse(line.slice(tab + 1)) as FeedRow, line.slice(0, tab));
}

/** k-way merge of sorted runs; k is small (rows / runSize), so a linear scan of the heads is enough. */
async function* mergeRuns(files: string[]): AsyncGenerator<CanonicalRow> {
  const readers = files.map((f) => new RunReader(f));
  const heads: (CanonicalRow | null)[] = [];
  for (const r of readers) heads.push(await r.next());
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (h && (best === -1 || compareRows(h, heads[best] as CanonicalRow) < 0)) best = i;
    }
    if (best === -1) return;
    yield heads[best] as CanonicalRow;
    heads[best] = await (readers[best] as RunReader).next();
  }
}

async function* dedupe(
  sorted: Iterable<CanonicalRow> | AsyncIterable<CanonicalRow>,
): AsyncGenerator<CanonicalRow> {
  let held: CanonicalRow | null = null;
  for await (const c of sorted) {
    if (held && held.key === c.key) {
      if (c.row.first_seen < held.row.first_seen) held.row.first_seen = c.row.first_seen;
      if (c.row.last_seen > held.row.last_seen) held.row.last_seen = c.row.last_seen;
      continue;
    }
    if (held) yield held;
    held = c;
  }
  if (held) yield held;
}
