import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { dedupeLines } from './dedupe-lines.ts';
import { type CanonicalRow, type RowLine, rowLine } from './row.ts';
import { MAX_RUN_SIZE, sortRun } from './sort-run.ts';
import { MemoryRun, MergedRuns, type RunSource, spillRun } from './sorted-runs.ts';

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
  const runs = new RunCollector(options);
  try {
    // A plain iterable is read without an await per row (for await wraps each row in a promise).
    if (Symbol.iterator in rows) {
      for (const input of rows) if (runs.take(input)) await runs.endRun();
    } else for await (const input of rows) if (runs.take(input)) await runs.endRun();
    yield* dedupeLines(await runs.finish());
  } finally {
    await runs.cleanup();
  }
}

/**
 * Rows taken as lines into runs of at most `runSize`, each sorted when full (sort-run.ts) and
 * spilled to `spillDir` (or kept in memory without it); `finish` gives them as one sorted source.
 */
class RunCollector {
  private lines: string[] = [];
  private heads: number[] = [];
  private readonly runs: RunSource[] = [];
  private spillRoot: string | null = null;
  private readonly runSize: number;

  constructor(private readonly options: SortOptions) {
    this.runSize = options.spillDir
      ? Math.min(MAX_RUN_SIZE, Math.max(1, options.runSize ?? DEFAULT_RUN_SIZE))
      : MAX_RUN_SIZE;
  }

  /** Takes one input row (an invalid one is reported, with onInvalid, or thrown); true when the run is full. */
  take(input: unknown): boolean {
    let r: RowLine;
    if (this.options.onInvalid) {
      try {
        r = rowLine(input);
      } catch (err) {
        this.options.onInvalid(err instanceof Error ? err.message : String(err));
        return false;
      }
    } else r = rowLine(input);
    this.lines.push(r.line);
    this.heads.push(r.head);
    return this.lines.length >= this.runSize;
  }

  async endRun(): Promise<void> {
    const sorted = sortRun(this.lines, this.heads);
    this.lines = [];
    this.heads = [];
    const spillDir = this.options.spillDir;
    if (!spillDir) {
      this.runs.push(new MemoryRun(sorted));
      return;
    }
    this.spillRoot ??= await mkdtemp(path.join(spillDir, '.sort-'));
    this.runs.push(await spillRun(sorted, path.join(this.spillRoot, `run-${this.runs.length}.tsv`)));
  }

  /** Every row taken, in order (one run as it is, several merged). */
  async finish(): Promise<RunSource> {
    if (this.runs.length === 0) this.runs.push(new MemoryRun(sortRun(this.lines, this.heads)));
    else if (this.lines.length > 0) await this.endRun();
    this.lines = [];
    this.heads = [];
    return this.runs.length === 1 ? (this.runs[0] as RunSource) : await MergedRuns.of(this.runs);
  }

  /** Removes the spilled runs. */
  async cleanup(): Promise<void> {
    if (this.spillRoot) await rm(this.spillRoot, { recursive: true, force: true });
  }
}
