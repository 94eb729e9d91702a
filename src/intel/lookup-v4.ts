/**
 * The IPv4 hot path of lookup.ts. An address is answered from the block it lies in
 * (blockIndexV4): a whole /16, /20 or /24 names its answer row directly, and a partial block
 * names where its smaller blocks' rows begin, so that every level is one read; the rare partial
 * /24 is searched over [start, row] pairs, the row of the interval found coming in the cache line
 * of its start. The answer is read from that row (answer-rows.ts): a uniform random address
 * touches two to four cache lines, not the five to seven of index, starts, slot and template
 * object.
 */
import { intToIpv4 } from '../core/ip.ts';
import { NO_RECORD, type Snapshot } from '../dataset/index.ts';
import { type AnswerRows, ROW_NONE, ROW_UNBUILT } from './answer-rows.ts';
import { blockIndexV4Slices, blockLengthV4, PARTIAL_V4, searchV4 } from './engine.ts';
import { pieceHiV4, pieceLoV4, splitByPrefixV4Slices } from './prefix-cut.ts';
import type { Profile } from './profile.ts';
import type { Slices } from './slices.ts';
import type { IpAnswer } from './types.ts';

const UNBUILT = ROW_UNBUILT;
const NONE = ROW_NONE;
/** A /24 that intervals start inside: search it. */
const PARTIAL = PARTIAL_V4;
/**
 * A partial /16 or /20 in the row tables: SMALLER - b, where b is the index of its first
 * smaller block's row (every mark is above SMALLER).
 */
const SMALLER = -4;

/**
 * The IPv4 lookup of a snapshot, its tables built as a sliced build (slices.ts): the prefix
 * cuts, the block index, then the [start, row] pairs and the blocks' rows.
 */
/** A block's mark before first use, from the interval it names (PARTIAL: search it). */
const markOf = (j: number) => (j === PARTIAL ? PARTIAL : j < 0 ? NONE : UNBUILT);

function marksRange(by: Int32Array, out: Int32Array, from: number, to: number): void {
  for (let b = from; b < to; b++) out[b] = markOf(by[b] as number);
}

function rows20Range(by20: Int32Array, base24: Int32Array, out: Int32Array, from: number, to: number): void {
  for (let q = from; q < to; q++) {
    const j = by20[3 * q] as number;
    out[q] = j === PARTIAL ? SMALLER - (base24[q] as number) : markOf(j);
  }
}

/** [start, row mark] pairs of cut intervals [from, to). */
function pairsRange(
  s: Snapshot,
  cut: { starts: Uint32Array; origin: Uint32Array },
  starts: Uint32Array,
  rowAt: Int32Array,
  from: number,
  to: number,
): void {
  for (let j = from; j < to; j++) {
    starts[2 * j] = cut.starts[j] as number;
    rowAt[2 * j + 1] = s.v4.recs[cut.origin[j] as number] === NO_RECORD ? NONE : UNBUILT;
  }
}

export function* createLookupV4(options: {
  snapshot: Snapshot;
  profileOf: (rec: number) => Profile;
  rows: AnswerRows;
}): Slices<(ip: number, address: string) => IpAnswer | null> {
  const { snapshot: s, profileOf, rows } = options;
  const cut = yield* splitByPrefixV4Slices(s.v4);
  const origin = cut.origin;
  const { by16, base20, by20, base24, by24 } = yield* blockIndexV4Slices(cut.starts);
  // [start, row] per cut interval: one buffer read as unsigned starts and signed rows.
  const pairs = new ArrayBuffer(origin.length * 8);
  const starts = new Uint32Array(pairs);
  const rowAt = new Int32Array(pairs);
  for (let from = 0; from < origin.length; from += 65536) {
    pairsRange(s, cut, starts, rowAt, from, Math.min(origin.length, from + 65536));
    yield;
  }
  // The row (or mark) of every block, built on first use from the interval the block names; a
  // partial /16 or /20 holds where its sixteen smaller blocks are.
  const rows16 = by16.map((j, top) => (j === PARTIAL ? SMALLER - (base20[top] as number) : markOf(j)));
  yield;
  const rows20 = new Int32Array(by20.length / 3);
  for (let from = 0; from < rows20.length; from += 65536) {
    rows20Range(by20, base24, rows20, from, Math.min(rows20.length, from + 65536));
    yield;
  }
  const rows24 = new Int32Array(by24.length);
  for (let from = 0; from < by24.length; from += 65536) {
    marksRange(by24, rows24, from, Math.min(by24.length, from + 65536));
    yield;
  }

  /** The row of cut interval j (NONE when it has no record), built on first use. */
  function rowOf(j: number): number {
    if (j < 0) return NONE;
    let r = rowAt[2 * j + 1] as number;
    if (r === UNBUILT) {
      const i = origin[j] as number;
      const p = profileOf(s.v4.recs[i] as number);
      const start = starts[2 * j] as number;
      const len = blockLengthV4(pieceLoV4(s.v4, i), pieceHiV4(s.v4, i), start);
      const network = len === 0 ? 0 : (start & (0xffffffff << (32 - len))) >>> 0;
      r = rows.add(p, `${intToIpv4(network)}/${len}`);
      rowAt[2 * j + 1] = r;
    }
    return r;
  }

  /** The row of an address of a partial /20 (its q in by20), whose /24s start at b24. */
  function rowIn24(ip: number, q: number, b24: number): number {
    const b = b24 + ((ip >>> 8) & 15);
    const r = rows24[b] as number;
    if (r >= 0 || r === NONE) return r;
    // A partial /24, or a whole one seen first: the search between the /20's bounds.
    const found = rowOf(searchV4(starts, 2, by20[3 * q + 1] as number, by20[3 * q + 2] as number, ip));
    if (r === UNBUILT) rows24[b] = found;
    return found;
  }

  /** The row of an address of a partial /16, whose /20s start at b20. */
  function rowIn20(ip: number, b20: number): number {
    const q = b20 + ((ip >>> 12) & 15);
    const r = rows20[q] as number;
    if (r >= 0 || r === NONE) return r;
    if (r <= SMALLER) return rowIn24(ip, q, SMALLER - r);
    const built = rowOf(by20[3 * q] as number);
    rows20[q] = built;
    return built;
  }

  /** The answer for a public (not bogon) address. */
  return (ip, address) => {
    const top = ip >>> 16;
    let r = rows16[top] as number;
    if (r < 0) {
      if (r <= SMALLER) r = rowIn20(ip, SMALLER - r);
      else if (r === UNBUILT) {
        r = rowOf(by16[top] as number);
        rows16[top] = r;
      }
      if (r === NONE) return null;
    }
    return rows.answer(address, r);
  };
}
