import { createReadStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { endianness } from 'node:os';
import path from 'node:path';
import { type CanonicalRow, compareRows, type RowLine, rowFromLine, rowLine } from './row.ts';

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
/** A run's row index takes the low 21 bits of its sort word (see sortRun). */
const INDEX_BITS = 21;
const MAX_RUN_SIZE = 2 ** INDEX_BITS;
const WRITE_BATCH = 1 << 20;
const READ_CHUNK = 1 << 20;
/** Index of the low 32-bit half of a 64-bit word in a Uint32Array over it. */
const LOW = endianness() === 'LE' ? 0 : 1;

/**
 * Validates, normalizes and sorts rows into canonical order, merging rows with the same network:
 * the first row in total order wins, with first_seen widened to the earliest and last_seen to the latest.
 */
export async function* sortFeedRows(
  rows: RowSource,
  options: SortOptions = {},
): AsyncGenerator<CanonicalRow> {
  for await (const batch of sortFeedRowBatches(rows, options)) yield* batch;
}

/**
 * sortFeedRows, handing out the rows in arrays of a few thousand (one await per batch, not per
 * row). Rows travel as lines (row.ts rowLine), sorted in runs by a typed-array sort of their key
 * heads; runs are spilled to `spillDir` (or kept in memory without it) and merged.
 */
export async function* sortFeedRowBatches(
  rows: RowSource,
  options: SortOptions = {},
): AsyncGenerator<CanonicalRow[]> {
  const runSize = options.spillDir
    ? Math.min(MAX_RUN_SIZE, Math.max(1, options.runSize ?? DEFAULT_RUN_SIZE))
    : MAX_RUN_SIZE;
  let lines: string[] = [];
  let heads: number[] = [];
  const runs: RunSource[] = [];
  let spillRoot: string | null = null;
  const endRun = async () => {
    const sorted = sortRun(lines, heads);
    lines = [];
    heads = [];
    if (!options.spillDir) {
      runs.push(new MemoryRun(sorted));
      return;
    }
    spillRoot ??= await mkdtemp(path.join(options.spillDir, '.sort-'));
    runs.push(await spillRun(sorted, path.join(spillRoot, `run-${runs.length}.tsv`)));
  };
  /** Takes one input row; true when the run is full. */
  const take = (input: unknown): boolean => {
    let r: RowLine;
    if (options.onInvalid) {
      try {
        r = rowLine(input);
      } catch (err) {
        options.onInvalid(err instanceof Error ? err.message : String(err));
        return false;
      }
    } else r = rowLine(input);
    lines.push(r.line);
    heads.push(r.head);
    return lines.length >= runSize;
  };
  try {
    // A plain iterable is read without an await per row (for await wraps each row in a promise).
    if (Symbol.iterator in rows) {
      for (const input of rows) if (take(input)) await endRun();
    } else for await (const input of rows) if (take(input)) await endRun();
    if (runs.length === 0) runs.push(new MemoryRun(sortRun(lines, heads)));
    else if (lines.length > 0) await endRun();
    lines = [];
    heads = [];
    yield* dedupe(runs.length === 1 ? (runs[0] as RunSource) : await MergedRuns.of(runs));
  } finally {
    if (spillRoot) await rm(spillRoot, { recursive: true, force: true });
  }
}

/**
 * Sorts a run's lines by key: each row's 64-bit word is its key head (43 bits) above its index, so
 * a native BigUint64Array sort orders them; IPv6 rows whose heads tie are then ordered by line.
 */
function sortRun(lines: string[], heads: number[]): string[] {
  const n = lines.length;
  const words = new BigUint64Array(n);
  const half = new Uint32Array(words.buffer);
  const low = 2 ** (32 - INDEX_BITS);
  for (let i = 0; i < n; i++) {
    const head = heads[i] as number;
    half[2 * i + 1 - LOW] = Math.floor(head / low);
    half[2 * i + LOW] = (head % low) * MAX_RUN_SIZE + i;
  }
  words.sort();
  const out: string[] = new Array(n);
  const mask = MAX_RUN_SIZE - 1;
  let i = 0;
  while (i < n) {
    const hi = half[2 * i + 1 - LOW] as number;
    const lo = (half[2 * i + LOW] as number) >>> INDEX_BITS;
    let j = i + 1;
    while (j < n && half[2 * j + 1 - LOW] === hi && (half[2 * j + LOW] as number) >>> INDEX_BITS === lo) j++;
    for (let k = i; k < j; k++) out[k] = lines[(half[2 * k + LOW] as number) & mask] as string;
    // An IPv6 head is only the start of the key (IPv4 heads are whole keys: equal heads, equal keys).
    if (j - i > 1 && hi >= 2 ** 31) {
      const group = out.slice(i, j).sort();
      for (let k = i; k < j; k++) out[k] = group[k - i] as string;
    }
    i = j;
  }
  return out;
}

/** Sorted lines handed out from a buffer: `take` while it gives lines, then `fill` (false at the end). */
interface RunSource {
  take(): string | undefined;
  fill(): Promise<boolean>;
}

class MemoryRun implements RunSource {
  private index = 0;
  constructor(private lines: string[]) {}
  take(): string | undefined {
    if (this.index < this.lines.length) return this.lines[this.index++];
    this.lines = [];
    return undefined;
  }
  async fill(): Promise<boolean> {
    return false;
  }
}

async function spillRun(sorted: string[], file: string): Promise<RunSource> {
  const fh = await open(file, 'wx');
  try {
    let chunk = '';
    for (const line of sorted) {
      chunk += `${line}\n`;
      if (chunk.length >= WRITE_BATCH) {
        await fh.write(chunk);
        chunk = '';
      }
    }
    if (chunk) await fh.write(chunk);
  } finally {
    await fh.close();
  }
  return new RunReader(file);
}

/** Reads a run file in large chunks: the merge awaits only when a run's buffer is used up. */
class RunReader implements RunSource {
  private chunks: AsyncIterator<Buffer | string> | null = null;
  private lines: string[] = [];
  private index = 0;
  private rest = '';
  private done = false;

  constructor(private readonly file: string) {}

  take(): string | undefined {
    return this.index < this.lines.length ? this.lines[this.index++] : undefined;
  }

  async fill(): Promise<boolean> {
    if (this.done) return false;
    this.chunks ??= createReadStream(this.file, { highWaterMark: READ_CHUNK, encoding: 'utf8' })[
      Symbol.asyncIterator
    ]();
    const next = await this.chunks.next();
    this.index = 0;
    if (next.done) {
      this.done = true;
      this.lines = this.rest ? [this.rest] : [];
      this.rest = '';
      return this.lines.length > 0;
    }
    const parts = (this.rest + String(next.value)).split('\n');
    this.rest = parts.pop() ?? '';
    this.lines = parts;
    return true;
  }
}

/** The next line of a run, refilling its buffer as needed; undefined at its end. */
async function nextLine(run: RunSource): Promise<string | undefined> {
  for (;;) {
    const line = run.take();
    if (line !== undefined) return line;
    if (!(await run.fill())) return undefined;
  }
}

/**
 * k-way merge of sorted runs by line (lines order by key); k is small (rows / runSize), so a
 * linear scan of the heads is enough. `take` stops (undefined) when a run needs refilling.
 */
class MergedRuns implements RunSource {
  private heads: (string | undefined)[] = [];
  private refill = -1;

  constructor(private readonly runs: RunSource[]) {}

  static async of(runs: RunSource[]): Promise<MergedRuns> {
    const merged = new MergedRuns(runs);
    for (const run of runs) merged.heads.push(await nextLine(run));
    return merged;
  }

  take(): string | undefined {
    if (this.refill !== -1) return undefined;
    const heads = this.heads;
    let best = -1;
    let min: string | undefined;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (h !== undefined && (min === undefined || h < min)) {
        best = i;
        min = h;
      }
    }
    if (best === -1) return undefined;
    const next = (this.runs[best] as RunSource).take();
    heads[best] = next;
    if (next === undefined) this.refill = best;
    return min;
  }

  async fill(): Promise<boolean> {
    if (this.refill === -1) return false;
    this.heads[this.refill] = await nextLine(this.runs[this.refill] as RunSource);
    this.refill = -1;
    return true;
  }
}

const BATCH = 4096;

function keyOf(line: string): string {
  return line.slice(0, line.charCodeAt(0) === 52 ? 12 : 36);
}

/** Rows of one network: the first in total order, its seen dates widened to the group's. */
function resolveGroup(lines: string[]): CanonicalRow {
  const rows = lines.map(rowFromLine);
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

/** Sorted lines to canonical rows, one per network, in batches. */
async function* dedupe(run: RunSource): AsyncGenerator<CanonicalRow[]> {
  let batch: CanonicalRow[] = [];
  let held: string | undefined;
  let heldKey = '';
  let same: string[] | null = null;
  for (;;) {
    const line = run.take();
    if (line === undefined) {
      if (!(await run.fill())) break;
      continue;
    }
    const key = keyOf(line);
    if (key === heldKey) {
      if (same) same.push(line);
      else same = [held as string, line];
      continue;
    }
    if (held !== undefined) batch.push(same ? resolveGroup(same) : rowFromLine(held));
    held = line;
    heldKey = key;
    same = null;
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (held !== undefined) batch.push(same ? resolveGroup(same) : rowFromLine(held));
  if (batch.length > 0) yield batch;
}
