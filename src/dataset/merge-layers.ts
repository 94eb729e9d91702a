/**
 * The layers one family's merge sweeps over, one per fact (ASN, country, whois country,
 * asn-country, RIR, cloud, AI, geofeed, network) and one per flag bit and source. Each layer is
 * the input rows flattened so that the narrowest row wins (rank breaks ties, README.md).
 */
import { flattenNarrowest, type Pieces } from './flatten.ts';
import type { AddrRange, Family } from './importers/types.ts';
import type { Inputs } from './input-rows.ts';
import { type MergeContext, packCountry } from './merge-context.ts';
import { RIRS } from './types.ts';

export interface Layer {
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

/** Layer order in the sweep; flag layers follow NETWORK. */
export const L = {
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

/** The layers of `family` in sweep order (L, then the flag layers) and the org id of each ASN row. */
export function familyLayers(
  family: Family,
  inputs: Inputs,
  ctx: MergeContext,
): { layers: Layer[]; orgIds: Int32Array } {
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
  const countryLayer = countryLayerOf(geofeedRows, rirRows, whoisRows, whoisLayer);
  const geofeedLayer = geofeedLayerOf(geofeedRows, ctx);
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
  layers.push(...flagLayers(fam(inputs.flags)));
  return { layers, orgIds };
}

type Rows<K extends keyof Inputs> = Inputs[K];

/**
 * The country layer: geofeed < RIR statistics < geo-whois-asn-country on equal width
 * (README.md); the whois layer itself when no geofeed or RIR row names a country.
 */
function countryLayerOf(
  geofeedRows: Rows<'geofeed'>,
  rirRows: Rows<'rirRanges'>,
  whoisRows: Rows<'whois'>,
  whoisLayer: Layer,
): Layer {
  const countryRows = [
    ...geofeedRows.filter((r) => r.country).map((r) => ({ ...r, rank: 0, cc: r.country, src: r.label })),
    ...rirRows.filter((r) => r.country).map((r) => ({ ...r, rank: 1, cc: r.country, src: r.source })),
  ];
  return countryRows.length === 0
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
}

/** The geofeed layer: each distinct (country, region, city, postal code) entry interned once. */
function geofeedLayerOf(geofeedRows: Rows<'geofeed'>, ctx: MergeContext): Layer {
  const { interner } = ctx;
  return layerOf(
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
}

/**
 * One layer per flag bit and source: narrowest wins inside a source, so an rbldnsd `!`
 * carve-out clears that file's listing, and the record knows which files set each bit.
 */
function flagLayers(flagRows: Rows<'flags'>): Layer[] {
  const layers: Layer[] = [];
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
  return layers;
}
