/**
 * The last step of the feed row sort (sort-rows.ts): sorted lines become canonical rows, one per
 * network. Lines of one network are adjacent (lines order by key); the first row in total order
 * wins, with its seen dates widened to the group's.
 */
import { type CanonicalRow, compareRows, rowFromLine } from './row.ts';
import type { RunSource } from './sorted-runs.ts';

const BATCH = 4096;

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

/**
 * Sorted lines taken one at a time, each network's row handed out once the next network's line
 * shows its group is complete (`push`), the last one by `end`.
 */
class NetworkGroups {
  private held: string | undefined;
  private heldKey = '';
  private same: string[] | null = null;

  /** The row of the previous network when `line` starts a new one, else undefined. */
  push(line: string): CanonicalRow | undefined {
    // A key is 12 characters for IPv4 (`4`...), 36 for IPv6 (`6`...).
    const key = line.slice(0, line.charCodeAt(0) === 52 ? 12 : 36);
    if (key === this.heldKey) {
      if (this.same) this.same.push(line);
      else this.same = [this.held as string, line];
      return undefined;
    }
    const done = this.end();
    this.held = line;
    this.heldKey = key;
    return done;
  }

  /** The row of the network held, if any (it leaves the holder). */
  end(): CanonicalRow | undefined {
    if (this.held === undefined) return undefined;
    const row = this.same ? resolveGroup(this.same) : rowFromLine(this.held);
    this.held = undefined;
    this.same = null;
    return row;
  }
}

/** Sorted lines to canonical rows, one per network, in batches. */
export async function* dedupeLines(run: RunSource): AsyncGenerator<CanonicalRow[]> {
  const groups = new NetworkGroups();
  let batch: CanonicalRow[] = [];
  for (;;) {
    const line = run.take();
    if (line === undefined) {
      if (!(await run.fill())) break;
      continue;
    }
    const row = groups.push(line);
    if (row === undefined) continue;
    batch.push(row);
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  const last = groups.end();
  if (last) batch.push(last);
  if (batch.length > 0) yield batch;
}
