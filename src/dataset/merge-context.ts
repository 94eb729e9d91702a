/**
 * What the merges of one build share and produce: the interned strings, the records of facts
 * and their provenance (which source gave each field), and one family's intervals.
 */
import type { Rir } from './importers/rir-delegated.ts';

export interface RecordFacts {
  asn: number;
  org: number;
  country: number;
  whoisCountry: number;
  asnCountry: number;
  rir: number;
  flags: number;
  cloud: number;
  ai: number;
  geofeed: number;
  /** Index into the snapshot's provenance table: which source gave each field. */
  prov: number;
}

/**
 * The source ids behind one record's fields, as the merge chose them: the winning row of each
 * layer, every source list that set a flag bit, and for fallbacks the rule that applied.
 */
export interface Provenance {
  /** The narrowest network row (ASN row, cloud or crawler range, geofeed entry): the prefix. */
  net: string | null;
  asn: string | null;
  country: string | null;
  rir: string | null;
  cloud: string | null;
  ai: string | null;
  geofeed: string | null;
  /** [flag bit, source ids that set it], ascending by bit. */
  flags: [number, string[]][];
}

export interface Interner {
  strings: string[];
  id(s: string | null): number;
}

export function createInterner(): Interner {
  const strings = [''];
  const ids = new Map<string, number>([['', 0]]);
  return {
    strings,
    id(s) {
      if (s === null || s === '') return 0;
      let v = ids.get(s);
      if (v === undefined) {
        v = strings.length;
        strings.push(s);
        ids.set(s, v);
      }
      return v;
    },
  };
}

export function packCountry(cc: string | null): number {
  return cc && cc.length === 2 ? (cc.charCodeAt(0) << 8) | cc.charCodeAt(1) : 0;
}

export interface FamilyMerge {
  starts: bigint[];
  recs: number[];
  /** Network piece per interval (-1: none): the narrowest network row, which the prefix is cut from. */
  nets: number[];
  netStarts: bigint[];
  netEnds: bigint[];
  /** The ASN layer's pieces (the ASN prefix lists). */
  asnStarts: bigint[];
  asnEnds: bigint[];
  asnAsns: number[];
}

export interface MergeContext {
  interner: Interner;
  records: RecordFacts[];
  recordIds: Map<string, number>;
  geofeedIds: Map<string, number>;
  geofeeds: number[];
  rirOfAsn: Map<number, { rir: Rir; source: string }>;
  provenances: Provenance[];
  provenanceIds: Map<string, number>;
}
