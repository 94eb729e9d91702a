import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
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
}

const DEFAULT_RUN_SIZE = 100_000;
const WRITE_BATCH = 1 << 16;

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
      buffer.push(canonicalizeRow(input));
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

function readRun(file: string): AsyncIterator<string> {
  const lines = createInterface({
    input: createReadStream(file, { highWaterMark: WRITE_BATCH }),
    crlfDelay: Infinity,
  });
  return lines[Symbol.asyncIterator]();
}

function parseRunLine(line: string): CanonicalRow {
  const tab = line.indexOf('\t');
  return canonicalFromKey(JSON.parse(line.slice(tab + 1)) as FeedRow, line.slice(0, tab));
}

/** k-way merge of sorted runs; k is small (rows / runSize), so a linear scan of the heads is enough. */
async function* mergeRuns(files: string[]): AsyncGenerator<CanonicalRow> {
  const readers = files.map(readRun);
  const heads: (CanonicalRow | null)[] = [];
  for (const r of readers) {
    const next = await r.next();
    heads.push(next.done ? null : parseRunLine(next.value));
  }
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (h && (best === -1 || compareRows(h, heads[best] as CanonicalRow) < 0)) best = i;
    }
    if (best === -1) return;
    yield heads[best] as CanonicalRow;
    const next = await (readers[best] as AsyncIterator<string>).next();
    heads[best] = next.done ? null : parseRunLine(next.value);
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
