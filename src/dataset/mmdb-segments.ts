/**
 * The address space of one family as the export sees it: a sorted list of segments, each with one
 * value for all its addresses (an id the caller gives a snapshot record, or -1: no record), cut
 * where the lookup answers bogons. Neighbours with the same value are one segment.
 */
import { parseCidr } from '../core/ip.ts';
import { type FamilyTable, NO_RECORD } from './snapshot.ts';

export interface Segments {
  family: 4 | 6;
  /** Segment starts: one word each (IPv4) or four big-endian words each (IPv6). */
  starts: Uint32Array;
  values: Int32Array;
  size: number;
}

type Range = [first: bigint, last: bigint];

/** A CIDR's family and first and last address. */
export function rangeOfCidr(text: string): [4 | 6, Range] | null {
  const c = parseCidr(text);
  if (!c) return null;
  const bits = c.family === 4 ? 32 : 128;
  let first = 0n;
  for (const b of c.bytes) first = (first << 8n) | BigInt(b);
  return [c.family, [first, first + (1n << BigInt(bits - c.prefixLength)) - 1n]];
}

/** Sorted ranges with overlapping and touching ones merged. */
export function mergeRanges(ranges: Range[]): Range[] {
  const sorted = ranges.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const merged: Range[] = [];
  for (const r of sorted) {
    const top = merged[merged.length - 1];
    if (top && r[0] <= top[1] + 1n) top[1] = r[1] > top[1] ? r[1] : top[1];
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/** A table's interval start as a number (IPv4) or bigint. */
export function startOf(t: FamilyTable, i: number): bigint {
  if (t.family === 4) return BigInt(t.starts[i] as number);
  let v = 0n;
  for (let k = 0; k < 4; k++) v = (v << 32n) | BigInt(t.starts[i * 4 + k] as number);
  return v;
}

/** Grows typed arrays as segments are added. */
class SegmentList {
  starts: Uint32Array;
  values: Int32Array;
  size = 0;

  constructor(
    private readonly words: 1 | 4,
    capacity: number,
  ) {
    this.starts = new Uint32Array(capacity * words);
    this.values = new Int32Array(capacity);
  }

  private lastStart = -1n;

  add(start: bigint, value: number): void {
    // A segment that starts where the last one did replaces it (that one held no address).
    if (start === this.lastStart) this.size--;
    if (this.size > 0 && this.values[this.size - 1] === value) return;
    this.lastStart = start;
    if (this.size === this.values.length) {
      const starts = new Uint32Array(this.starts.length * 2);
      starts.set(this.starts);
      const values = new Int32Array(this.values.length * 2);
      values.set(this.values);
      this.starts = starts;
      this.values = values;
    }
    for (let k = this.words - 1, v = start; k >= 0; k--, v >>= 32n)
      this.starts[this.size * this.words + k] = Number(v & 0xffffffffn);
    this.values[this.size++] = value;
  }
}

/**
 * The pieces of [from, last] cut by the holes (sorted, disjoint) from index `h` on, in order:
 * [start, inHole]. A hole that runs past `last` is cut there (the next interval's pieces start in it).
 */
function* piecesOf(
  from: bigint,
  last: bigint,
  holes: readonly Range[],
  h: number,
): Generator<[bigint, boolean]> {
  let at = from;
  for (let j = h; at <= last; j++) {
    const hole = holes[j];
    if (!hole || hole[0] > last) {
      yield [at, false];
      return;
    }
    if (at < hole[0]) yield [at, false];
    yield [hole[0] > at ? hole[0] : at, true];
    at = hole[1] + 1n;
  }
}

/**
 * The segments of a table: each interval's record mapped through `partOf` (given the record and
 * the interval's first address outside a hole), the holes (sorted, disjoint) as -1.
 */
export function segmentsOf(
  t: FamilyTable,
  holes: readonly Range[],
  partOf: (rec: number, first: bigint) => number,
): Segments {
  const list = new SegmentList(t.family === 4 ? 1 : 4, Math.max(16, t.size));
  const top = (1n << (t.family === 4 ? 32n : 128n)) - 1n;
  let h = 0;
  list.add(0n, -1);
  for (let i = 0; i < t.size; i++) {
    const rec = t.recs[i] as number;
    const from = startOf(t, i);
    const last = i + 1 < t.size ? startOf(t, i + 1) - 1n : top;
    while (h < holes.length && (holes[h] as Range)[1] < from) h++;
    for (const [start, inHole] of piecesOf(from, last, holes, h))
      list.add(start, inHole || rec === NO_RECORD ? -1 : partOf(rec, start));
  }
  return { family: t.family, starts: list.starts, values: list.values, size: list.size };
}
