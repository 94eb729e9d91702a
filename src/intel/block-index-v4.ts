/**
 * The IPv4 block index of the cut starts (lookup-v4.ts reads it): which interval each whole
 * /16, /20 or /24 lies in, and where the smaller blocks of a partial one are. Built as a sliced
 * build (slices.ts), so that a reload builds it between turns of the event loop.
 */
import { runSlices, type Slices } from './slices.ts';

/** A block (BlockIndexV4) in which intervals start: search it. */
export const PARTIAL_V4 = -2;

/**
 * The IPv4 address space in blocks, for lookups that mostly need no search: every /16, the
 * sixteen /20s of each /16 that intervals start inside, and the sixteen /24s of each such /20. A
 * whole block (no start inside it but, perhaps, at its first address) lies in one interval,
 * which the entry names; a partial one says where to look next. On the full dataset half of the
 * address space is in whole /16s, a quarter more in whole /20s and nearly all the rest in whole
 * /24s: what a lookup reads there (256 KB, 12 bytes a /20, 4 bytes a /24) stays nearer the core
 * than a search over the starts (8 MB); fewer than one address in 250 needs the search.
 */
export interface BlockIndexV4 {
  /** Per /16: the interval holding all of it, -1 when none does (below the first start), or PARTIAL_V4. */
  by16: Int32Array;
  /** Per /16 whose entry is PARTIAL_V4: the index of its first /20 in by20 (0 elsewhere). */
  base20: Int32Array;
  /**
   * Three words per /20 of the partial /16s: the entry, as in by16; the last interval starting
   * before the /20 (-1: none); the last starting in or before it. The interval of an address of
   * a partial /20 is the last of those two and the starts between them at or below it; a whole
   * /20's interval is the third word.
   */
  by20: Int32Array;
  /** Per /20 of by20 whose entry is PARTIAL_V4: the index of its first /24 in by24 (0 elsewhere). */
  base24: Int32Array;
  /**
   * Per /24 of the partial /20s: the entry, as in by16. An address of a partial /24 is searched
   * between the bounds of its /20 (by20).
   */
  by24: Int32Array;
}

/** One block's entry, given `k`, its first start at or above `from`, and `e`, its first at or above the end. */
function blockEntry(starts: Uint32Array, from: number, k: number, e: number): number {
  if (e === k) return k - 1;
  return e === k + 1 && (starts[k] as number) === from ? k : PARTIAL_V4;
}

export function blockIndexV4(starts: Uint32Array): BlockIndexV4 {
  return runSlices(blockIndexV4Slices(starts));
}

/** blockIndexV4 as a sliced build (slices.ts): a yield every 256 /16s of each pass. */
export function* blockIndexV4Slices(starts: Uint32Array): Slices<BlockIndexV4> {
  const b = blockBuilder(starts);
  for (let top = 0; top < 65536; top += 256) {
    b.pass16(top, top + 256);
    yield;
  }
  b.endPass16();
  for (let top = 0; top < 65536; top += 256) {
    b.pass24(top, top + 256);
    yield;
  }
  return b.done();
}

/**
 * The two passes of blockIndexV4 over ranges of /16s (plain functions, so that V8 optimizes
 * their loops as before; the generator only calls them): the /16s and the /20s of the partial
 * ones, then the /24s of the partial /20s.
 */
function blockBuilder(starts: Uint32Array) {
  const n = starts.length;
  const by16 = new Int32Array(65536);
  const base20 = new Int32Array(65536);
  let by20 = new Int32Array(65536 * 48); // at most: every /16 partial (pages never written stay unmapped)
  let m20 = 0; // words of by20 in use
  let base24 = new Int32Array(0);
  let by24 = new Int32Array(0);
  let b = 0; // by24 entries written
  let k = 0; // the first start at or above the current block's first address
  let partial20 = 0;
  const firstAtOrAbove = (x: number, from: number) => {
    let i = from;
    while (i < n && (starts[i] as number) < x) i++;
    return i;
  };
  /** The entry of the block [from, from + size), moving k to its first start. */
  const entryAt = (from: number, size: number) => {
    k = firstAtOrAbove(from, k);
    return blockEntry(starts, from, k, firstAtOrAbove(from + size, k));
  };
  /** The /24 entries of the partial /20s of the partial /16 `top`. */
  const partial16Blocks24 = (top: number): void => {
    for (let q = base20[top] as number, end = q + 16; q < end; q++) {
      if (by20[3 * q] !== PARTIAL_V4) continue;
      base24[q] = b;
      k = (by20[3 * q + 1] as number) + 1; // the /20's first start
      const from = top * 65536 + (q - (base20[top] as number)) * 4096;
      for (let c = 0; c < 16; c++) by24[b++] = entryAt(from + c * 256, 256);
    }
  };
  return {
    pass16(fromTop: number, toTop: number): void {
      for (let top = fromTop; top < toTop; top++) {
        const base = top * 65536;
        const entry = entryAt(base, 65536);
        by16[top] = entry;
        if (entry !== PARTIAL_V4) continue;
        base20[top] = m20 / 3;
        for (let q = 0; q < 16; q++) {
          const from = base + q * 4096;
          const e = entryAt(from, 4096);
          by20[m20++] = e;
          by20[m20++] = k - 1;
          by20[m20++] = firstAtOrAbove(from + 4096, k) - 1;
          if (e === PARTIAL_V4) partial20++;
        }
      }
    },
    endPass16(): void {
      by20 = by20.slice(0, m20);
      base24 = new Int32Array(m20 / 3);
      by24 = new Int32Array(partial20 * 16);
    },
    pass24(fromTop: number, toTop: number): void {
      for (let top = fromTop; top < toTop; top++) {
        if (by16[top] === PARTIAL_V4) partial16Blocks24(top);
      }
    },
    done: (): BlockIndexV4 => ({ by16, base20, by20, base24, by24 }),
  };
}
