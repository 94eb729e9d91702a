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

/** Pseudo-source ids for the documented fallbacks (README.md), named in provenance. */
export const RULE_COUNTRY_RIR = 'netrep-country-rir';

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

interface Layer {
  pieces: Pieces;
  value: (winner: number) => number;
  source: (winner: number) => string | null;
  /** The winning input row's own first and last address (a piece may be only part of it). */
  row: (winner: number) => AddrRange;
}

function layerOf<T extends AddrRange>(
  rows: T[],
  rank: (r: T) => number,
  value: (r: T) => number,
  source: (r: T) => string | null = () => null,
): Layer {
  const pieces = flattenNarrowest(rows.map((r) => ({ start: r.start, end: r.end, rank: rank(r) })));
  return {
    pieces,
    value: (w) => value(rows[w] as T),
    source: (w) => source(rows[w] as T),
    row: (w) => rows[w] as T,
  };
}

const NONE = -1;

/** Layer order in the sweep; flag layers follow NETWORK. */
const L = {
  ASN: 0,
  COUNTRY: 1,
  WHOIS: 2,
  ASN_COUNTRY: 3,
  RIR: 4,
  CLOUD: 5,
  AI: 6,
  GEOFEED: 7,
  NETWORK: 8,
} as const;

export function mergeFamily(family: Family, inputs: Inputs, ctx: MergeContext): FamilyMerge {
  const fam = <T extends AddrRange>(rows: T[]) => rows.filter((r) => r.family === family);
  const { interner } = ctx;
  const asnRows = fam(inputs.asn);
  const whoisRows = fam(inputs.whois);
  const geofeedRows = fam(inputs.geofeed);
  const rirRows = fam(inputs.rirRanges);
  const cloudRows = fam(inputs.cloud);
  const aiRows = fam(inputs.ai);
  const asnLayer = layerOf(
    asnRows,
    () => 0,
    (r) => r.asn,
    () => 'asn',
  );
  const whoisLayer = layerOf(
    whoisRows,
    () => 0,
    (r) => packCountry(r.country),
    () => 'geo-whois-asn-country',
  );
  const countryRows = [
    ...geofeedRows.filter((r) => r.country).map((r) => ({ ...r, rank: 0, cc: r.country, src: r.label })),
    ...rirRows.filter((r) => r.country).map((r) => ({ ...r, rank: 1, cc: r.country, src: r.source })),
  ];
  const countryLayer =
    countryRows.length === 0
      ? whoisLayer
      : layerOf(
          [
            ...countryRows,
            ...whoisRows.map((r) => ({ ...r, rank: 2, cc: r.country, src: 'geo-whois-asn-country' })),
          ],
          (r) => r.rank,
          (r) => packCountry(r.cc),
          (r) => r.src,
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
    (r) => r.label,
  );
  // The prefix is cut from the narrowest published network that holds the address: an ASN row,
  // a cloud or crawler range, or a geofeed entry (README.md). Host and listing lists (Tor, VPN,
  // DROP, UCEPROTECT) say nothing about the network and do not narrow it.
  const networkRows: (AddrRange & { source: string })[] = [
    ...asnRows.map((r) => ({ family: r.family, start: r.start, end: r.end, source: 'asn' })),
    ...cloudRows,
    ...aiRows,
    ...geofeedRows.map((r) => ({ family: r.family, start: r.start, end: r.end, source: r.label })),
  ];
  const layers: Layer[] = [
    asnLayer,
    countryLayer,
    whoisLayer,
    layerOf(
      fam(inputs.asnCountry),
      () => 0,
      (r) => packCountry(r.country),
      () => 'asn-country',
    ),
    layerOf(
      rirRows,
      (r) => (r.status === 'iana' ? 1 : 0),
      (r) => RIRS.indexOf(r.rir) + 1,
      (r) => r.source,
    ),
    layerOf(
      cloudRows,
      () => 0,
      (r) => interner.id(r.label),
      (r) => r.source,
    ),
    layerOf(
      aiRows,
      () => 0,
      (r) => interner.id(r.label),
      (r) => r.source,
    ),
    geofeedLayer,
    layerOf(
      networkRows,
      () => 0,
      () => 1,
      (r) => r.source,
    ),
  ];
  const orgIds = Int32Array.from(asnRows, (r) => interner.id(r.org));
  // One layer per flag bit and source: narrowest wins inside a source, so an rbldnsd `!`
  // carve-out clears that file's listing, and the record knows which files set each bit.
  const flagRows = fam(inputs.flags);
  const flagKeys = [...new Set(flagRows.map((f) => `${f.flag}\u0000${f.source}`))];
  for (const key of flagKeys) {
    const rows = flagRows.filter((f) => `${f.flag}\u0000${f.source}` === key);
    layers.push(
      layerOf(
        rows,
        (r) => (r.exclude ? 0 : 1),
        (r) => (r.exclude ? 0 : r.flag),
        (r) => r.source,
      ),
    );
  }
  return sweep(layers, orgIds, ctx, family === 4 ? 0xffffffffn : (1n << 128n) - 1n);
}

function provenanceId(ctx: MergeContext, p: Provenance): number {
  const key = JSON.stringify(p);
  let id = ctx.provenanceIds.get(key);
  if (id === undefined) {
    id = ctx.provenances.length;
    ctx.provenances.push(p);
    ctx.provenanceIds.set(key, id);
  }
  return id;
}

function sweep(layers: Layer[], orgIds: Int32Array, ctx: MergeContext, maxAddr: bigint): FamilyMerge {
  const asnLayer = layers[L.ASN] as Layer;
  const netLayer = layers[L.NETWORK] as Layer;
  const out: FamilyMerge = {
    starts: [],
    recs: [],
    nets: [],
    // The prefix is cut from the whole winning row: where a narrower row covers part of it,
    // the piece left over is not the network (103.21.244.0/22 minus a /24 is no /24 network).
    netStarts: netLayer.pieces.winners.map((w) => netLayer.row(w).start),
    netEnds: netLayer.pieces.winners.map((w) => netLayer.row(w).end),
    asnStarts: asnLayer.pieces.starts,
    asnEnds: asnLayer.pieces.ends,
    asnAsns: asnLayer.pieces.winners.map((w) => asnLayer.value(w)),
  };
  const ptr = layers.map(() => 0);
  const vals = layers.map(() => NONE);
  /** The winning input row of each layer at x, NONE where the layer does not cover x. */
  const wins = layers.map(() => NONE);
  let x: bigint | null = null;
  for (const l of layers)
    if (l.pieces.starts.length > 0 && (x === null || (l.pieces.starts[0] as bigint) < x))
      x = l.pieces.starts[0] as bigint;
  const firstFlag = L.NETWORK + 1;
  const srcOf = (i: number): string | null =>
    wins[i] === NONE ? null : (layers[i] as Layer).source(wins[i] as number);
  while (x !== null && x <= maxAddr) {
    let next: bigint | null = null;
    let netPiece = NONE;
    for (let i = 0; i < layers.length; i++) {
      const p = (layers[i] as Layer).pieces;
      let k = ptr[i] as number;
      while (k < p.starts.length && (p.ends[k] as bigint) < x) k++;
      ptr[i] = k;
      let v = NONE;
      let w = NONE;
      let candidate: bigint | null = null;
      if (k < p.starts.length) {
        const s = p.starts[k] as bigint;
        if (s <= x) {
          w = p.winners[k] as number;
          v = (layers[i] as Layer).value(w);
          candidate = (p.ends[k] as bigint) + 1n;
          if (i === L.NETWORK) netPiece = k;
        } else candidate = s;
      }
      vals[i] = v;
      wins[i] = w;
      if (candidate !== null && (next === null || candidate < next)) next = candidate;
    }
    let flags = 0;
    const flagSources = new Map<number, string[]>();
    for (let i = firstFlag; i < layers.length; i++) {
      const bit = vals[i] as number;
      if (bit <= 0) continue;
      flags |= bit;
      const list = flagSources.get(bit) ?? [];
      list.push(srcOf(i) as string);
      flagSources.set(bit, list);
    }
    const covered = vals.some((v, i) => v !== NONE && (i < firstFlag || v > 0));
    let rec = NONE;
    if (covered) {
      const asn = vals[L.ASN] === NONE ? 0 : (vals[L.ASN] as number);
      const org = wins[L.ASN] === NONE ? 0 : (orgIds[wins[L.ASN] as number] as number);
      let country = vals[L.COUNTRY] === NONE ? 0 : (vals[L.COUNTRY] as number);
      let countrySrc = country === 0 ? null : srcOf(L.COUNTRY);
      const asnCountry = vals[L.ASN_COUNTRY] === NONE ? 0 : (vals[L.ASN_COUNTRY] as number);
      if (country === 0 && asnCountry !== 0) {
        country = asnCountry;
        countrySrc = srcOf(L.ASN_COUNTRY);
      }
      let rir = vals[L.RIR] === NONE ? 0 : (vals[L.RIR] as number);
      let rirSrc = rir === 0 ? null : srcOf(L.RIR);
      if (rir === 0 && asn !== 0) {
        const r = ctx.rirOfAsn.get(asn);
        if (r) {
          rir = RIRS.indexOf(r.rir) + 1;
          rirSrc = r.source;
        }
      }
      if (rir === 0 && country !== 0) {
        const r = rirForCountry(String.fromCharCode(country >> 8, country & 255));
        if (r) {
          rir = RIRS.indexOf(r) + 1;
          rirSrc = RULE_COUNTRY_RIR;
        }
      }
      const cloud = vals[L.CLOUD] === NONE ? 0 : (vals[L.CLOUD] as number);
      const ai = vals[L.AI] === NONE ? 0 : (vals[L.AI] as number);
      const prov = provenanceId(ctx, {
        net: srcOf(L.NETWORK),
        asn: asn === 0 ? null : srcOf(L.ASN),
        country: countrySrc,
        rir: rirSrc,
        cloud: cloud === 0 ? null : srcOf(L.CLOUD),
        ai: ai === 0 ? null : srcOf(L.AI),
        geofeed: srcOf(L.GEOFEED),
        flags: [...flagSources].sort((a, b) => a[0] - b[0]).map(([b, l]) => [b, l.sort()]),
      });
      const facts: RecordFacts = {
        asn,
        org,
        country,
        whoisCountry: vals[L.WHOIS] === NONE ? 0 : (vals[L.WHOIS] as number),
        asnCountry,
        rir,
        flags,
        cloud,
        ai,
        geofeed: vals[L.GEOFEED] as number,
        prov,
      };
      const key = `${asn},${org},${country},${facts.whoisCountry},${asnCountry},${rir},${flags},${cloud},${ai},${facts.geofeed},${prov}`;
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
