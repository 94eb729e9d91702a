/**
 * createIntel: IP and ASN answers over one loaded snapshot, composed of the hot-path lookup
 * (lookup.ts), the anonymous answer's extras (extended.ts) and the ASN answers (asn-answers.ts).
 * Profiles (per-record classification) are built once per record and shared by all three.
 * The lookup tables are built in slices (slices.ts), so that a reload need not hold the event
 * loop for them.
 */
import { type Clock, systemClock } from '../core/clock.ts';
import type { IpWords, ParsedIp } from '../core/ip.ts';
import type { AsnEntry, Snapshot } from '../dataset/index.ts';
import { type AsnAnswers, createAsnAnswers } from './asn-answers.ts';
import { createExtendedAnswers } from './extended.ts';
import { createLookup, type LookupTables, lazyTable } from './lookup.ts';
import { buildProfile, type Profile } from './profile.ts';
import { runSlices, type Slices } from './slices.ts';
import type { GeoStability, IpAnswer, IpAnswerExtended, ThreatSignalSource } from './types.ts';

export interface IntelOptions {
  snapshot: Snapshot;
  signals?: ThreatSignalSource;
  reverseDns?: (ip: string) => Promise<string | null>;
  clock?: Clock;
  /**
   * `cut` (the default) builds the lookup's tables first, for a server's many answers; `direct`
   * builds none and searches per address, for a command that answers a list and exits (lookup.ts).
   */
  tables?: LookupTables;
}

export interface Intel extends AsnAnswers {
  datasetVersion: number;
  lookup(ip: ParsedIp): IpAnswer | null;
  /** lookup for an address read with readIp: text to answer without building a ParsedIp. */
  lookupWords(ip: IpWords): IpAnswer | null;
  lookupExtended(ip: ParsedIp): Promise<IpAnswerExtended | null>;
  /** geo_stability of the address over the dataset history (null for bogons and unknown space). */
  geoStability(ip: ParsedIp): GeoStability | null;
}

export function createIntel(options: IntelOptions): Intel {
  return runSlices(createIntelSlices(options));
}

function mapRange(map: Map<number, AsnEntry>, asns: AsnEntry[], from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const a = asns[i] as AsnEntry;
    map.set(a.asn, a);
  }
}

/**
 * createIntel as a sliced build (slices.ts): a reload runs it with turns of the event loop
 * between slices (runtime.ts), a start or a command runs it through (createIntel).
 */
export function* createIntelSlices(options: IntelOptions): Slices<Intel> {
  const s = options.snapshot;
  const asnMap = new Map<number, AsnEntry>();
  for (let from = 0; from < s.asns.length; from += 8192) {
    mapRange(asnMap, s.asns, from, Math.min(s.asns.length, from + 8192));
    yield;
  }
  const profiles = lazyTable<Profile>(s.records.count);
  const profileOf = (rec: number): Profile => {
    let p = profiles.get(rec);
    if (!p) {
      p = buildProfile(s, rec, (asn) => asnMap.get(asn));
      profiles.set(rec, p);
    }
    return p;
  };
  const lookup = yield* createLookup({
    snapshot: s,
    profileOf,
    ...(options.signals ? { signals: options.signals } : {}),
    ...(options.tables ? { tables: options.tables } : {}),
  });
  const extended = createExtendedAnswers({
    snapshot: s,
    lookup,
    profileOf,
    reverseDns: options.reverseDns,
    clock: options.clock ?? systemClock,
  });
  const asns = createAsnAnswers({
    snapshot: s,
    asnMap,
    profileOf,
    recordAt: lookup.recordAt,
    reputationOf: extended.reputationOf,
  });
  return {
    datasetVersion: s.version,
    lookup: lookup.lookup,
    lookupWords: lookup.lookupWords,
    lookupExtended: extended.lookupExtended,
    geoStability: extended.geoStability,
    ...asns,
  };
}
