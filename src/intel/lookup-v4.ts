/**
 * The IPv4 hot path of lookup.ts. An address is answered from the block it lies in
 * (blockIndexV4): a whole /16 or /20 names its answer row directly; a partial /20 is searched
 * over [start, row] pairs, so that the row of the interval found comes in the cache line of its
 * start, and the answer is read from that row (answer-rows.ts): a uniform random address touches
 * two or three cache lines, not the five to seven of index, starts, slot and template object.
 */
import { intToIpv4 } from '../core/ip.ts';
import { NO_RECORD, type Snapshot } from '../dataset/index.ts';
import { type AnswerRows, ROW_NONE, ROW_UNBUILT } from './answer-rows.ts';
import { blockIndexV4, blockLengthV4, PARTIAL_V4, searchV4 } from './engine.ts';
import { pieceHiV4, pieceLoV4, splitByPrefixV4 } from './prefix-cut.ts';
import type { Profile } from './profile.ts';
import type { IpAnswer } from './types.ts';

const UNBUILT = ROW_UNBUILT;
const NONE = ROW_NONE;
/** A third mark, for blocks: search it. */
const PARTIAL = PARTIAL_V4;

export function createLookupV4(options: {
  snapshot: Snapshot;
  profileOf: (rec: number) => Profile;
  rows: AnswerRows;
}): (ip: number, address: string) => IpAnswer | null {
  const { snapshot: s, profileOf, rows } = options;
  const cut = splitByPrefixV4(s.v4);
  const origin = cut.origin;
  const blocks = blockIndexV4(cut.starts);
  // [start, row] per cut interval: one buffer read as unsigned starts and signed rows.
  const pairs = new ArrayBuffer(origin.length * 8);
  const starts = new Uint32Array(pairs);
  const rowAt = new Int32Array(pairs);
  for (let j = 0; j < origin.length; j++) {
    starts[2 * j] = cut.starts[j] as number;
    rowAt[2 * j + 1] = s.v4.recs[origin[j] as number] === NO_RECORD ? NONE : UNBUILT;
  }
  // The row (or mark) of every block, built on first use from the interval the block names.
  const markOf = (j: number) => (j === PARTIAL ? PARTIAL : j < 0 ? NONE : UNBUILT);
  const rows16 = blocks.by16.map(markOf);
  const by20 = blocks.by20;
  const rows20 = new Int32Array(by20.length / 3);
  for (let q = 0; q < rows20.length; q++) rows20[q] = markOf(by20[3 * q] as number);

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

  /** The row of an address of a partial /16. */
  function rowIn20(ip: number, top: number): number {
    const q = (blocks.base20[top] as number) + ((ip >>> 12) & 15);
    const r = rows20[q] as number;
    if (r >= 0 || r === NONE) return r;
    if (r === UNBUILT) {
      const built = rowOf(by20[3 * q] as number);
      rows20[q] = built;
      return built;
    }
    return rowOf(searchV4(starts, 2, by20[3 * q + 1] as number, by20[3 * q + 2] as number, ip));
  }

  /** The answer for a public (not bogon) address. */
  return (ip, address) => {
    const top = ip >>> 16;
    let r = rows16[top] as number;
    if (r < 0) {
      if (r === PARTIAL) r = rowIn20(ip, top);
      else if (r === UNBUILT) {
        r = rowOf(blocks.by16[top] as number);
        rows16[top] = r;
      }
      if (r === NONE) return null;
    }
    return rows.answer(address, r);
  };
}
