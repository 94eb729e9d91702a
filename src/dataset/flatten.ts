/**
 * Turns overlapping ranges into sorted, non-overlapping pieces where the narrowest covering
 * range wins (ties: lower rank, then earlier input order). This is the "most specific prefix
 * wins" rule of the merge; see README.md.
 */
export interface RankedRange {
  start: bigint;
  end: bigint;
  /** Lower wins when two ranges are equally narrow (source precedence). */
  rank: number;
}

export interface Pieces {
  starts: bigint[];
  ends: bigint[];
  /** Index of the winning input range for each piece. */
  winners: number[];
}

class MinHeap {
  private readonly items: number[] = [];
  constructor(private readonly less: (a: number, b: number) => boolean) {}
  get size(): number {
    return this.items.length;
  }
  peek(): number {
    return this.items[0] as number;
  }
  push(v: number): void {
    const a = this.items;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(a[i] as number, a[p] as number)) break;
      [a[i], a[p]] = [a[p] as number, a[i] as number];
      i = p;
    }
  }
  pop(): void {
    const a = this.items;
    const last = a.pop() as number;
    if (a.length === 0) return;
    a[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.less(a[l] as number, a[m] as number)) m = l;
      if (r < a.length && this.less(a[r] as number, a[m] as number)) m = r;
      if (m === i) break;
      [a[i], a[m]] = [a[m] as number, a[i] as number];
      i = m;
    }
  }
}

export function flattenNarrowest(ranges: readonly RankedRange[]): Pieces {
  const out: Pieces = { starts: [], ends: [], winners: [] };
  if (ranges.length === 0) return out;
  const order = startOrder(ranges);
  const points = boundariesOf(ranges);
  const heap = narrowestFirstHeap(ranges);
  let next = 0;
  for (let p = 0; p < points.length; p++) {
    const b = points[p] as bigint;
    if (p > 0 && points[p - 1] === b) continue;
    next = admitStarted(heap, ranges, order, next, b);
    while (heap.size > 0 && (ranges[heap.peek()] as RankedRange).end < b) heap.pop();
    if (heap.size === 0) continue;
    let q = p + 1;
    while (q < points.length && points[q] === b) q++;
    const w = heap.peek();
    const end = q < points.length ? (points[q] as bigint) - 1n : (ranges[w] as RankedRange).end;
    appendPiece(out, b, end, w);
  }
  return out;
}

/** Range indexes by start, then input order. */
function startOrder(ranges: readonly RankedRange[]): number[] {
  return ranges
    .map((_, i) => i)
    .sort((a, b) => {
      const x = ranges[a] as RankedRange;
      const y = ranges[b] as RankedRange;
      return x.start < y.start ? -1 : x.start > y.start ? 1 : a - b;
    });
}

/** Every range's start and end + 1, ascending (duplicates kept). */
function boundariesOf(ranges: readonly RankedRange[]): bigint[] {
  const points: bigint[] = [];
  for (const r of ranges) points.push(r.start, r.end + 1n);
  points.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return points;
}

/** A heap of range indexes whose top is the winner: the narrowest, then the lowest rank, then the first. */
function narrowestFirstHeap(ranges: readonly RankedRange[]): MinHeap {
  const size = ranges.map((r) => r.end - r.start);
  return new MinHeap((a, b) => {
    const sa = size[a] as bigint;
    const sb = size[b] as bigint;
    if (sa !== sb) return sa < sb;
    const ra = (ranges[a] as RankedRange).rank;
    const rb = (ranges[b] as RankedRange).rank;
    return ra !== rb ? ra < rb : a < b;
  });
}

/** Pushes the ranges (in start order from `next`) that start at or before b; returns the new `next`. */
function admitStarted(
  heap: MinHeap,
  ranges: readonly RankedRange[],
  order: number[],
  next: number,
  b: bigint,
): number {
  let n = next;
  while (n < order.length && (ranges[order[n] as number] as RankedRange).start <= b)
    heap.push(order[n++] as number);
  return n;
}

/** Appends the piece [b, end] won by w, or extends the previous piece when w also won it and it ends at b - 1. */
function appendPiece(out: Pieces, b: bigint, end: bigint, w: number): void {
  const last = out.winners.length - 1;
  if (last >= 0 && out.winners[last] === w && out.ends[last] === b - 1n) out.ends[last] = end;
  else {
    out.starts.push(b);
    out.ends.push(end);
    out.winners.push(w);
  }
}
