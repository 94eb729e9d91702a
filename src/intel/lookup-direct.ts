/**
 * The lookup without tables of its own, for a process that answers some thousands of addresses
 * and exits (`netrep lookup --file`, `netrep summarize`): each address is found in the snapshot's
 * intervals by their bucketed search (engine.ts findV4/findV6) and its prefix computed from the
 * interval's piece, where the serving lookup (lookup.ts) first cuts every interval at its prefix
 * boundaries and indexes the cuts. Building those tables for the full dataset costs about a
 * second of CPU, a thousand times a search: worth it for a server, not for one command. The
 * answers are the same (lookup-direct.test.ts compares them); the rows of answer-rows.ts are
 * shared per record and prefix.
 */
import { intToIpv4 } from '../core/ip.ts';
import { NO_RECORD, type Snapshot } from '../dataset/index.ts';
import { type AnswerRows, ROW_NONE } from './answer-rows.ts';
import { blockLengthV4, cidrAroundV6, findV4, findV6, formatV6Words } from './engine.ts';
import { pieceHiV4, pieceLoV4, pieceV6 } from './prefix-cut.ts';
import type { Profile } from './profile.ts';

export interface DirectLookup {
  /** The row of a public IPv4 address (ROW_NONE when no record holds it). */
  rowV4(ip: number): number;
  /** The row of a public IPv6 address given as four big-endian words. */
  rowV6(words: Uint32Array): number;
}

export function createDirectLookup(options: {
  snapshot: Snapshot;
  profileOf: (rec: number) => Profile;
  rows: AnswerRows;
}): DirectLookup {
  const { snapshot: s, profileOf, rows } = options;
  /** Row numbers by record and prefix: one row per prefix a command meets, not per address. */
  const made = new Map<string, number>();
  const rowFor = (rec: number, prefix: string): number => {
    const key = `${rec} ${prefix}`;
    let r = made.get(key);
    if (r === undefined) {
      r = rows.add(profileOf(rec), prefix);
      made.set(key, r);
    }
    return r;
  };
  const lo = new Uint32Array(4);
  const hi = new Uint32Array(4);
  const network = new Uint32Array(4);
  const bcast = new Uint32Array(4);

  return {
    rowV4(ip) {
      const i = findV4(s.v4, ip);
      const rec = i < 0 ? NO_RECORD : (s.v4.recs[i] as number);
      if (rec === NO_RECORD) return ROW_NONE;
      const len = blockLengthV4(pieceLoV4(s.v4, i), pieceHiV4(s.v4, i), ip);
      const net = len === 0 ? 0 : (ip & (0xffffffff << (32 - len))) >>> 0;
      return rowFor(rec, `${intToIpv4(net)}/${len}`);
    },
    rowV6(words) {
      const w = words;
      const i = findV6(s.v6, w[0] as number, w[1] as number, w[2] as number, w[3] as number);
      const rec = i < 0 ? NO_RECORD : (s.v6.recs[i] as number);
      if (rec === NO_RECORD) return ROW_NONE;
      pieceV6(s.v6, i, lo, hi);
      const len = cidrAroundV6(words, lo, hi, network, bcast);
      const n = network;
      const text = formatV6Words(n[0] as number, n[1] as number, n[2] as number, n[3] as number);
      return rowFor(rec, `${text}/${len}`);
    },
  };
}
