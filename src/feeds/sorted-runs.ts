/**
 * Sorted runs of the feed row sort (sort-rows.ts) and their k-way merge: a run kept in memory,
 * or spilled to a file and read back in large chunks; lines are handed out from buffers so that
 * the merge awaits only when a buffer is used up.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

const WRITE_BATCH = 1 << 20;
const READ_CHUNK = 1 << 20;

/** Sorted lines handed out from a buffer: `take` while it gives lines, then `fill` (false at the end). */
export interface RunSource {
  take(): string | undefined;
  fill(): Promise<boolean>;
}

export class MemoryRun implements RunSource {
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

export async function spillRun(sorted: string[], file: string): Promise<RunSource> {
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
export class MergedRuns implements RunSource {
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
