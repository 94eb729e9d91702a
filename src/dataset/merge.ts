/**
 * Merges the per-source layers of one address family into elementary intervals, each pointing
 * at an interned record of facts. Precedence (README.md): within a layer the narrowest range
 * wins; the country layer ranks geofeed < RIR statistics < geo-whois-asn-country on equal
 * width, and falls back to asn-country where none covers.
 */
import { rirForCountry } from './country-rir.ts';
import { flattenNarrowest, type Pieces } from './flatten.ts';
import type { Rir } from './importers/rir-delegated.ts';
import type { AddrRange, Family } from './importers/types.ts';
import type { Inputs } from './inputs.ts';
import { RIRS } from './types.ts';

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
  nets: number[];
  netStarts: bigint[];
  netEnds: bigint[];
  netAsns: number[];
}

export interface MergeContext {
  interner: Interner;
  records: RecordFacts[];
  recordIds: Map<string, number>;
  geofeedIds: Map<string, number>;
  geofeeds: number[];
  rirOfAsn: Map<number, Rir>;
}

interface Layer {
  pieces: Pieces;
  value: (winner: number) => number;
}

function layerOf<T extends AddrRange>(rows: T[], rank: (r: T) => number, value: (r: T) => number): Layer {
  const pieces = flattenNarrowest(rows.map((r) => ({ start: r.start, end: r.end, rank: rank(r) })));
  return { pieces, value: (w) => value(rows[w] as T) };
}

const NONE = -1;

export function mergeFamily(family: Family, inputs: Inputs, ctx: MergeContext): FamilyMerge {
  const fam = <T extends AddrRange>(rows: T[]) => rows.filter((r) => r.family === family);
  const { interner } = ctx;
  const asnRows = fam(inputs.asn);
  const whoisRows = fam(inputs.whois);
  const geofeedRows = fam(inputs.geofeed);
  const rirRows = fam(inputs.rirRanges);
  const asnLayer = layerOf(
    asnRows,
    () => 0,
    (r) => r.asn,
  );
  const whoisLayer = layerOf(
    whoisRows,
    () => 0,
    (r) => packCountry(r.country),
  );
  const countryRows = [
    ...geofeedRows.filter((r) => r.country).map((r) => ({ ...r, rank: 0, cc: r.country })),
    ...rirRows.filter((r) => r.country).map((r) => ({ ...r, rank: 1, cc: r.country })),
  ];
  const countryLayer =
    countryRows.length === 0
      ? whoisLayer
      : layerOf(
          [...countryRows, ...whoisRows.map((r) => ({ ...r, rank: 2, cc: r.country }))],
          (r) => r.rank,
          (r) => packCountry(r.cc),
        );
  const geofeedLayer = layerOf(
    geofeedRows,
    () => 0,
    (r) => {
      const key = `${r.country ?? ''}|${r.region ?? ''}|${r.city ?? ''}|${r.postalCode ?? ''}`;
      let id = ctx.geofeedIds.get(key);
      if (id === undefined) {
        id = ctx.geofeedIds.size;
        ctx.geofeedIds.set(key, id);
        ctx.geofeeds.push(
          interner.id(r.country),
          interner.id(r.region),
          interner.id(r.city),
          interner.id(r.postalCode),
        );
      }
      return id;
    },
  );
  const layers: Layer[] = [
    asnLayer,
    countryLayer,
    whoisLayer,
    layerOf(
      fam(inputs.asnCountry),
      () => 0,
      (r) => packCountry(r.country),
    ),
    layerOf(
      rirRows,
      (r) => (r.status === 'iana' ? 1 : 0),
      (r) => RIRS.indexOf(r.rir) + 1,
    ),
    layerOf(
      fam(inputs.cloud),
      () => 0,
      (r) => interner.id(r.label),
    ),
    layerOf(
      fam(inputs.ai),
      () => 0,
      (r) => interner.id(r.label),
    ),
    geofeedLayer,
  ];
  const orgIds = Int32Array.from(asnRows, (r) => interner.id(r.org));
  const asnOrg = (w: number) => orgIds[w] as number;
  // One layer per flag bit: narrowest wins, so an rbldnsd `!` carve-out clears its listing.
  const flagBits = [...new Set(inputs.flags.map((f) => f.flag))];
  for (const bit of flagBits) {
    const rows = fam(inputs.flags).filter((f) => f.flag === bit);
    layers.push(
      layerOf(
        rows,
        (r) => (r.exclude ? 0 : 1),
        (r) => (r.exclude ? 0 : bit),
      ),
    );
  }
  return sweep(
    layers,
    asnLayer,
    asnOrg,
    flagBits.length,
    ctx,
    family === 4 ? 0xffffffffn : (1n << 128n) - 1n,
  );
}

function sweep(
  layers: Layer[],
  asnLayer: Layer,
  asnOrg: (w: number) => number,
  flagLayers: number,
  ctx: MergeContext,
  maxAddr: bigint,
): FamilyMerge {
  const out: FamilyMerge = {
    starts: [],
    recs: [],
    nets: [],
    netStarts: asnLayer.pieces.starts,
    netEnds: asnLayer.pieces.ends,
    netAsns: [],
  };
  for (const w of asnLayer.pieces.winners) out.netAsns.push(asnLayer.value(w));
  const ptr = layers.map(() => 0);
  const vals = layers.map(() => NONE);
  let x: bigint | null = null;
  for (const l of layers)
    if (l.pieces.starts.length > 0 && (x === null || (l.pieces.starts[0] as bigint) < x))
      x = l.pieces.starts[0] as bigint;
  const firstFlag = layers.length - flagLayers;
  while (x !== null && x <= maxAddr) {
    let next: bigint | null = null;
    let netPiece = NONE;
    for (let i = 0; i < layers.length; i++) {
      const p = (layers[i] as Layer).pieces;
      let k = ptr[i] as number;
      while (k < p.starts.length && (p.ends[k] as bigint) < x) k++;
      ptr[i] = k;
      let v = NONE;
      let candidate: bigint | null = null;
      if (k < p.starts.length) {
        const s = p.starts[k] as bigint;
        if (s <= x) {
          v = (layers[i] as Layer).value(p.winners[k] as number);
          candidate = (p.ends[k] as bigint) + 1n;
          if (i === 0) netPiece = k;
        } else candidate = s;
      }
      vals[i] = v;
      if (candidate !== null && (next === null || candidate < next)) next = candidate;
    }
    let flags = 0;
    for (let i = firstFlag; i < layers.length; i++) if ((vals[i] as number) > 0) flags |= vals[i] as number;
    const covered = vals.some((v, i) => v !== NONE && (i < firstFlag || v > 0));
    let rec = NONE;
    if (covered) {
      const asn = vals[0] === NONE ? 0 : (vals[0] as number);
      const org = netPiece === NONE ? 0 : asnOrg(asnLayer.pieces.winners[netPiece] as number);
      let country = vals[1] === NONE ? 0 : (vals[1] as number);
      const asnCountry = vals[3] === NONE ? 0 : (vals[3] as number);
      if (country === 0) country = asnCountry;
      let rir = vals[4] === NONE ? 0 : (vals[4] as number);
      if (rir === 0 && asn !== 0) {
        const r = ctx.rirOfAsn.get(asn);
        if (r) rir = RIRS.indexOf(r) + 1;
      }
      if (rir === 0 && country !== 0) {
        const r = rirForCountry(String.fromCharCode(country >> 8, country & 255));
        if (r) rir = RIRS.indexOf(r) + 1;
      }
      const facts: RecordFacts = {
        asn,
        org,
        country,
        whoisCountry: vals[2] === NONE ? 0 : (vals[2] as number),
        asnCountry,
        rir,
        flags,
        cloud: vals[5] === NONE ? 0 : (vals[5] as number),
        ai: vals[6] === NONE ? 0 : (vals[6] as number),
        geofeed: vals[7] as number,
      };
      const key = `${asn},${org},${country},${facts.whoisCountry},${asnCountry},${rir},${flags},${facts.cloud},${facts.ai},${facts.geofeed}`;
      let id = ctx.recordIds.get(key);
      if (id === undefined) {
        id = ctx.records.length;
        ctx.records.push(facts);
        ctx.recordIds.set(key, id);
      }
      rec = id;
    }
    const last = out.recs.length - 1;
    if (last >= 0 && out.recs[last] === rec && out.nets[last] === netPiece) {
      // Same record and network as the previous interval: extend it.
    } else {
      out.starts.push(x);
      out.recs.push(rec);
      out.nets.push(netPiece);
    }
    x = next;
  }
  return out;
}
