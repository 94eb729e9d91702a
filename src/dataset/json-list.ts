/**
 * The JSON files of a snapshot (`strings.json`, `asns.json`, `provenance.json`: top-level lists)
 * parsed whole by a load, or in slices with yields to the event loop by the async load.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { SnapshotError } from './snapshot-error.ts';

export function parseJson<T>(dir: string, version: number, rel: string, data: Buffer, isArray = true): T {
  let value: unknown;
  try {
    value = JSON.parse(data.toString('utf8'));
  } catch (err) {
    throw new SnapshotError(dir, version, `${rel} does not parse (${(err as Error).message})`);
  }
  if (isArray && !Array.isArray(value)) throw new SnapshotError(dir, version, `${rel} is not a list`);
  return value as T;
}

/** Bytes of a JSON list parsed in one piece by the async load (about 4 ms of JSON.parse). */
const PARSE_BATCH = 256 * 1024;

const isJsonSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Where the bytes of a JSON value stand: inside a string (and after a backslash there) and how
 * deep in nested lists and objects, read one byte at a time.
 */
class ListScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;

  /** Reads byte `c`; true when it is structural at the list's own level: a `,` or a closing `]`/`}`. */
  atTop(c: number): boolean {
    if (this.inString) {
      this.readInString(c);
      return false;
    }
    if (c === 0x22) this.inString = true;
    else if (c === 0x5b || c === 0x7b) this.depth++;
    else if (c === 0x5d || c === 0x7d) {
      if (this.depth === 0) return true;
      this.depth--;
    } else return c === 0x2c && this.depth === 0;
    return false;
  }

  private readInString(c: number): void {
    if (this.escaped) this.escaped = false;
    else if (c === 0x5c) this.escaped = true;
    else if (c === 0x22) this.inString = false;
  }
}

/**
 * JSON.parse of a top-level list in slices of about 256 KB cut at the list's own commas, with a
 * yield to the event loop between them. The cut is found on the bytes (every structural
 * character of JSON is ASCII, and no UTF-8 continuation byte is), and each slice parses as
 * `[slice]`, so the whole is accepted exactly when JSON.parse accepts it.
 */
export async function parseJsonListAsync<T>(
  dir: string,
  version: number,
  rel: string,
  data: Buffer,
): Promise<T[]> {
  const fail = (why: string) => new SnapshotError(dir, version, `${rel} does not parse (${why})`);
  let i = 0;
  while (isJsonSpace(data[i])) i++;
  if (data[i] !== 0x5b) throw new SnapshotError(dir, version, `${rel} is not a list`);
  i++;
  const out: T[] = [];
  const scan = new ListScanner();
  let start = i;
  let cut = false;
  for (; i < data.length; i++) {
    const c = data[i] as number;
    if (!scan.atTop(c)) continue;
    if (c !== 0x2c) {
      if (c !== 0x5d) throw fail(`unexpected '}' at byte ${i}`);
      parseSlice(data, start, i, cut, fail, out);
      checkTail(data, i + 1, fail);
      return out;
    }
    if (i - start >= PARSE_BATCH) {
      parseSlice(data, start, i, cut, fail, out);
      start = i + 1;
      cut = true;
      await yieldToLoop();
    }
  }
  throw fail('the list does not end');
}

/** The items of data[start, end) (between two cuts, or the last cut and the closing bracket) onto `out`. */
function parseSlice<T>(
  data: Buffer,
  start: number,
  end: number,
  cut: boolean,
  fail: (why: string) => SnapshotError,
  out: T[],
): void {
  const slice = data.toString('utf8', start, end);
  if (slice.trim() === '') {
    if (cut) throw fail('a comma before the closing bracket');
    return;
  }
  let part: T[];
  try {
    part = JSON.parse(`[${slice}]`) as T[];
  } catch (err) {
    throw fail((err as Error).message);
  }
  for (const x of part) out.push(x);
}

/** Only white space may follow the list. */
function checkTail(data: Buffer, from: number, fail: (why: string) => SnapshotError): void {
  for (let i = from; i < data.length; i++)
    if (!isJsonSpace(data[i])) throw fail(`data after the list at byte ${i}`);
}
