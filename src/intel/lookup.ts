/**
 * The hot path: `lookup(ip)` reads the snapshot's intervals cut where the prefix changes, with
 * what each answers (profile and prefix) cached on first use: IPv4 through whole and partial
 * blocks (lookup-v4.ts), IPv6 through a bucketed binary search; both answer from rows of
 * answer-rows.ts. Only the answer object is new. `recordAt` finds the record of any address
 * (slower, no cut tables). The tables are built as a sliced build (slices.ts).
 */
import type { IpWords, ParsedIp } from '../core/ip.ts';
import { NO_RECORD, type Snapshot } from '../dataset/index.ts';
import {
  type AnswerRows,
  answerRows,
  ROW_NONE as NONE,
  type ThreatOf,
  ROW_UNBUILT as UNBUILT,
} from './answer-rows.ts';
import { bogonV4, bogonV6 } from './bogon.ts';
import { cidrAroundV6, findV4, findV6, findV6Fine, formatV6Words, v6Words } from './engine.ts';
import { createDirectLookup } from './lookup-direct.ts';
import { createLookupV4 } from './lookup-v4.ts';
import { pieceV6, splitByPrefixV6Slices } from './prefix-cut.ts';
import type { Profile } from './profile.ts';
import type { Slices } from './slices.ts';
import { type Contribution, POINTS, scoreThreat, THREAT_REASON } from './threat.ts';
import type { IpAnswer, Threat, ThreatSignalSource } from './types.ts';

/** An answer's threat with an active blocklist listing and a recent pristine trap hit added. */
function threatWith(signals: ThreatSignalSource): ThreatOf {
  return (ip, threat, contributions) => {
    const listing = signals.listingFor(ip);
    const trap = signals.pristineTrapHitRecent(ip);
    if (!listing && !trap) return threat;
    const c: Contribution[] = [];
    if (listing) {
      const bad = listing.type === 'malware' || listing.type === 'phishing';
      c.push({
        points: bad ? POINTS.listingMalware : POINTS.listingSpam,
        reason: THREAT_REASON.listing(listing.type),
      });
    }
    c.push(...contributions);
    if (trap) c.push({ points: POINTS.trap, reason: THREAT_REASON.trap });
    return scoreThreat(c);
  };
}

const BOGON_FLAGS = Object.freeze({
  is_datacenter: false,
  is_tor_exit: false,
  is_proxy: false,
  is_vpn: false,
  is_residential: false,
  is_mobile: false,
  is_ai_crawler: false,
});
const BOGON_THREAT: Threat = Object.freeze({
  score: 0,
  level: 'low',
  explanation: Object.freeze([]) as unknown as string[],
});

function bogonAnswer(address: string, prefix: string): IpAnswer {
  return {
    ip: address,
    prefix,
    asn: null,
    asn_name: null,
    country: null,
    rir: null,
    connection_type: null,
    bogon: true,
    netrep: BOGON_FLAGS,
    threat: BOGON_THREAT,
  };
}

/**
 * A lazily filled table of n values: an Int32Array of slots into a packed array. (A plain
 * `new Array(n)` of this size is a dictionary in V8: a hash lookup on every read.)
 */
export interface LazyTable<T> {
  get(i: number): T | undefined;
  set(i: number, value: T): void;
}

export function lazyTable<T>(n: number): LazyTable<T> {
  const slots = new Int32Array(n).fill(-1);
  const values: T[] = [];
  return {
    get: (i) => {
      const k = slots[i] as number;
      return k < 0 ? undefined : values[k];
    },
    set: (i, value) => {
      const k = slots[i] as number;
      if (k >= 0) values[k] = value;
      else {
        slots[i] = values.length;
        values.push(value);
      }
    },
  };
}

export interface Lookup {
  lookup(ip: ParsedIp): IpAnswer | null;
  /** The same answer for an address read with readIp (text to answer without a ParsedIp). */
  lookupWords(ip: IpWords): IpAnswer | null;
  /** The record of an address (NO_RECORD when none): for the extended and ASN answers. */
  recordAt(family: 4 | 6, value: bigint): number;
}

/**
 * How a lookup finds an address: `cut` builds the cut tables and their indexes first (about a
 * second of CPU on the full dataset; every answer after that is a few reads), `direct` searches
 * the snapshot's own intervals per address (lookup-direct.ts: no build, a search per answer),
 * for commands that answer some thousands of addresses and exit.
 */
export type LookupTables = 'cut' | 'direct';

/** The IPv6 rows of the cut tables: the row of an address given as words, built on first use. */
function* cutRowsV6(
  s: Snapshot,
  profileOf: (rec: number) => Profile,
  rows: AnswerRows,
): Slices<(words: Uint32Array) => number> {
  // The row of each cut interval (answer-rows.ts), built on first use: one Int32Array read and
  // one row on the hot path instead of the record, piece and profile tables (each a likely cache
  // miss on random addresses). The intervals are cut where the prefix changes (splitByPrefixV6),
  // so every row has its prefix.
  const cut6 = yield* splitByPrefixV6Slices(s.v6);
  const rowAt6 = new Int32Array(cut6.origin.length).fill(UNBUILT);

  const lo6 = new Uint32Array(4);
  const hi6 = new Uint32Array(4);
  const network6 = new Uint32Array(4);
  const bcast6 = new Uint32Array(4);

  /** The row of cut interval j, NONE when it has no record. */
  function row6(j: number): number {
    const i = cut6.origin[j] as number;
    const rec = s.v6.recs[i] as number;
    if (rec === NO_RECORD) {
      rowAt6[j] = NONE;
      return NONE;
    }
    pieceV6(s.v6, i, lo6, hi6);
    const len = cidrAroundV6(cut6.starts.subarray(j * 4, j * 4 + 4), lo6, hi6, network6, bcast6);
    const n = network6;
    const text = formatV6Words(n[0] as number, n[1] as number, n[2] as number, n[3] as number);
    const r = rows.add(profileOf(rec), `${text}/${len}`);
    rowAt6[j] = r;
    return r;
  }

  return (words) => {
    const j = findV6Fine(
      cut6.starts,
      cut6.fine,
      cut6.keys,
      words[0] as number,
      words[1] as number,
      words[2] as number,
      words[3] as number,
    );
    if (j < 0) return NONE;
    const r = rowAt6[j] as number;
    return r === UNBUILT ? row6(j) : r;
  };
}

/** The lookup of a snapshot, its tables (`cut`, the default) built as a sliced build (slices.ts). */
export function* createLookup(options: {
  snapshot: Snapshot;
  signals?: ThreatSignalSource;
  profileOf: (rec: number) => Profile;
  tables?: LookupTables;
}): Slices<Lookup> {
  const s = options.snapshot;
  const profileOf = options.profileOf;
  const words = new Uint32Array(4);

  function v6Value(): bigint {
    return (
      (BigInt(words[0] as number) << 96n) |
      (BigInt(words[1] as number) << 64n) |
      (BigInt(words[2] as number) << 32n) |
      BigInt(words[3] as number)
    );
  }

  const rows = answerRows(options.signals ? threatWith(options.signals) : null);
  const direct = options.tables === 'direct' ? createDirectLookup({ snapshot: s, profileOf, rows }) : null;
  const lookupPublicV4 = direct
    ? (ip: number, address: string) => {
        const r = direct.rowV4(ip);
        return r === NONE ? null : rows.answer(address, r);
      }
    : yield* createLookupV4({ snapshot: s, profileOf, rows });
  const rowV6 = direct ? direct.rowV6 : yield* cutRowsV6(s, profileOf, rows);

  function lookupV4(n: number, address: string): IpAnswer | null {
    const bogon = bogonV4(n);
    return bogon ? bogonAnswer(address, bogon) : lookupPublicV4(n, address);
  }

  /** The IPv6 address in `words`. */
  function lookupV6(address: string): IpAnswer | null {
    const w0 = words[0] as number;
    // Global unicast (2000::/3) outside the documentation blocks goes straight to the search.
    if (w0 >>> 29 !== 1 || w0 === 0x20010db8 || w0 >>> 20 === 0x3ff) {
      const bogon = bogonV6(w0, v6Value());
      if (bogon) return bogonAnswer(address, bogon);
    }
    const r = rowV6(words);
    return r === NONE ? null : rows.answer(address, r);
  }

  function lookup(ip: ParsedIp): IpAnswer | null {
    const b = ip.bytes;
    if (ip.family === 4) {
      const n =
        (((b[0] as number) << 24) | ((b[1] as number) << 16) | ((b[2] as number) << 8) | (b[3] as number)) >>>
        0;
      return lookupV4(n, ip.address);
    }
    v6Words(b, words);
    return lookupV6(ip.address);
  }

  function lookupWords(ip: IpWords): IpAnswer | null {
    const w = ip.words;
    if (ip.family === 4) return lookupV4(w[0] as number, ip.address);
    words[0] = w[0] as number;
    words[1] = w[1] as number;
    words[2] = w[2] as number;
    words[3] = w[3] as number;
    return lookupV6(ip.address);
  }

  function recordAt(family: 4 | 6, value: bigint): number {
    const t = family === 4 ? s.v4 : s.v6;
    let i: number;
    if (family === 4) i = findV4(t, Number(value));
    else {
      const w = [96n, 64n, 32n, 0n].map((sh) => Number((value >> sh) & 0xffffffffn)) as [
        number,
        number,
        number,
        number,
      ];
      i = findV6(t, ...w);
    }
    return i < 0 ? NO_RECORD : (t.recs[i] as number);
  }

  return { lookup, lookupWords, recordAt };
}
