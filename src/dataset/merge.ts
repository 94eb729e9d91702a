/**
 * Merges the per-source layers of one address family into elementary intervals, each pointing
 * at an interned record of facts. Precedence (README.md): within a layer the narrowest range
 * wins; the country layer ranks geofeed < RIR statistics < geo-whois-asn-country on equal
 * width, and falls back to asn-country where none covers.
 */
import { rirForCountry } from './country-rir.ts';
import type { Family } from './importers/types.ts';
import type { Inputs } from './input-rows.ts';
import type { FamilyMerge, MergeContext, Provenance, RecordFacts } from './merge-context.ts';
import { familyLayers, L, type Layer } from './merge-layers.ts';
import { RIRS } from './types.ts';

/** Pseudo-source ids for the documented fallbacks (README.md), named in provenance. */
export const RULE_COUNTRY_RIR = 'netrep-country-rir';

const NONE = -1;

export function mergeFamily(family: Family, inputs: Inputs, ctx: MergeContext): FamilyMerge {
  const { layers, orgIds } = familyLayers(family, inputs, ctx);
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

/**
 * The sweep's position, reused for every interval: each layer's piece pointer, its value and
 * winning input row at the current address (NONE where the layer does not cover it), and the
 * network piece there.
 */
interface Cursor {
  layers: Layer[];
  ptr: number[];
  vals: number[];
  wins: number[];
  netPiece: number;
}

/** Layers from this index on are flag layers (one per flag bit and source). */
const FIRST_FLAG = L.NETWORK + 1;

function sweep(layers: Layer[], orgIds: Int32Array, ctx: MergeContext, maxAddr: bigint): FamilyMerge {
  const out = emptyFamilyMerge(layers);
  const c: Cursor = {
    layers,
    ptr: layers.map(() => 0),
    vals: layers.map(() => NONE),
    wins: layers.map(() => NONE),
    netPiece: NONE,
  };
  let x = firstStart(layers);
  while (x !== null && x <= maxAddr) {
    const next = advance(c, x);
    const rec = isCovered(c) ? recordAt(c, orgIds, ctx) : NONE;
    appendInterval(out, x, rec, c.netPiece);
    x = next;
  }
  return out;
}

/** The merge of one family before the sweep: no intervals yet, the network and ASN pieces. */
function emptyFamilyMerge(layers: Layer[]): FamilyMerge {
  const asnLayer = layers[L.ASN] as Layer;
  const netLayer = layers[L.NETWORK] as Layer;
  return {
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
}

/** The lowest first address of any layer, null when every layer is empty. */
function firstStart(layers: Layer[]): bigint | null {
  let x: bigint | null = null;
  for (const l of layers)
    if (l.pieces.starts.length > 0 && (x === null || (l.pieces.starts[0] as bigint) < x))
      x = l.pieces.starts[0] as bigint;
  return x;
}

/** Moves every layer to address x; returns the next address where any layer changes (null: none). */
function advance(c: Cursor, x: bigint): bigint | null {
  let next: bigint | null = null;
  c.netPiece = NONE;
  for (let i = 0; i < c.layers.length; i++) {
    const candidate = advanceLayer(c, i, x);
    if (candidate !== null && (next === null || candidate < next)) next = candidate;
  }
  return next;
}

/**
 * Moves layer i to address x and records its value and winner there; returns where the layer
 * changes next: the end of the covering piece plus one, the start of the next piece, or null.
 */
function advanceLayer(c: Cursor, i: number, x: bigint): bigint | null {
  const layer = c.layers[i] as Layer;
  const p = layer.pieces;
  let k = c.ptr[i] as number;
  while (k < p.starts.length && (p.ends[k] as bigint) < x) k++;
  c.ptr[i] = k;
  c.vals[i] = NONE;
  c.wins[i] = NONE;
  if (k >= p.starts.length) return null;
  const s = p.starts[k] as bigint;
  if (s > x) return s;
  const w = p.winners[k] as number;
  c.wins[i] = w;
  c.vals[i] = layer.value(w);
  if (i === L.NETWORK) c.netPiece = k;
  return (p.ends[k] as bigint) + 1n;
}

/** Whether any layer says something at the cursor: a fact layer covers it or a flag is set. */
function isCovered(c: Cursor): boolean {
  for (let i = 0; i < c.vals.length; i++) {
    const v = c.vals[i] as number;
    if (v !== NONE && (i < FIRST_FLAG || v > 0)) return true;
  }
  return false;
}

/** Layer i's value at the cursor, 0 where it does not cover it. */
function valueAt(c: Cursor, i: number): number {
  return c.vals[i] === NONE ? 0 : (c.vals[i] as number);
}

/** The source id of layer i's winning row at the cursor, null where it does not cover it. */
function sourceAt(c: Cursor, i: number): string | null {
  return c.wins[i] === NONE ? null : (c.layers[i] as Layer).source(c.wins[i] as number);
}

/** Layer i's source where its value is set (not 0), else null. */
function sourceIfSet(c: Cursor, i: number, value: number): string | null {
  return value === 0 ? null : sourceAt(c, i);
}

/** The interned record of facts at the cursor, with its interned provenance. */
function recordAt(c: Cursor, orgIds: Int32Array, ctx: MergeContext): number {
  const asn = valueAt(c, L.ASN);
  const facts: RecordFacts = {
    asn,
    org: c.wins[L.ASN] === NONE ? 0 : (orgIds[c.wins[L.ASN] as number] as number),
    country: valueAt(c, L.COUNTRY),
    whoisCountry: valueAt(c, L.WHOIS),
    asnCountry: valueAt(c, L.ASN_COUNTRY),
    rir: valueAt(c, L.RIR),
    flags: 0,
    cloud: valueAt(c, L.CLOUD),
    ai: valueAt(c, L.AI),
    geofeed: c.vals[L.GEOFEED] as number,
    prov: 0,
  };
  const prov: Provenance = {
    net: sourceAt(c, L.NETWORK),
    asn: sourceIfSet(c, L.ASN, asn),
    country: sourceIfSet(c, L.COUNTRY, facts.country),
    rir: sourceIfSet(c, L.RIR, facts.rir),
    cloud: sourceIfSet(c, L.CLOUD, facts.cloud),
    ai: sourceIfSet(c, L.AI, facts.ai),
    geofeed: sourceAt(c, L.GEOFEED),
    flags: [],
  };
  facts.flags = collectFlags(c, prov);
  applyCountryFallback(c, facts, prov);
  applyRirFallbacks(ctx, facts, prov);
  facts.prov = provenanceId(ctx, prov);
  return recordId(ctx, facts);
}

/** ORs the flag bits set at the cursor; lists in prov.flags the sources of each bit (ascending). */
function collectFlags(c: Cursor, prov: Provenance): number {
  let flags = 0;
  const flagSources = new Map<number, string[]>();
  for (let i = FIRST_FLAG; i < c.vals.length; i++) {
    const bit = c.vals[i] as number;
    if (bit <= 0) continue;
    flags |= bit;
    const list = flagSources.get(bit) ?? [];
    list.push(sourceAt(c, i) as string);
    flagSources.set(bit, list);
  }
  prov.flags = [...flagSources].sort((a, b) => a[0] - b[0]).map(([b, l]) => [b, l.sort()]);
  return flags;
}

/** README.md: the country falls back to asn-country where no country layer covers the address. */
function applyCountryFallback(c: Cursor, facts: RecordFacts, prov: Provenance): void {
  if (facts.country === 0 && facts.asnCountry !== 0) {
    facts.country = facts.asnCountry;
    prov.country = sourceAt(c, L.ASN_COUNTRY);
  }
}

/**
 * README.md: without an RIR range, the RIR is the one that delegated the ASN, else the RIR
 * serving the country (named by the RULE_COUNTRY_RIR pseudo-source).
 */
function applyRirFallbacks(ctx: MergeContext, facts: RecordFacts, prov: Provenance): void {
  if (facts.rir === 0 && facts.asn !== 0) {
    const r = ctx.rirOfAsn.get(facts.asn);
    if (r) {
      facts.rir = RIRS.indexOf(r.rir) + 1;
      prov.rir = r.source;
    }
  }
  if (facts.rir === 0 && facts.country !== 0) {
    const r = rirForCountry(String.fromCharCode(facts.country >> 8, facts.country & 255));
    if (r) {
      facts.rir = RIRS.indexOf(r) + 1;
      prov.rir = RULE_COUNTRY_RIR;
    }
  }
}

/** The id of an equal record already interned, else of this one, added. */
function recordId(ctx: MergeContext, facts: RecordFacts): number {
  const f = facts;
  const key = `${f.asn},${f.org},${f.country},${f.whoisCountry},${f.asnCountry},${f.rir},${f.flags},${f.cloud},${f.ai},${f.geofeed},${f.prov}`;
  let id = ctx.recordIds.get(key);
  if (id === undefined) {
    id = ctx.records.length;
    ctx.records.push(facts);
    ctx.recordIds.set(key, id);
  }
  return id;
}

/** Appends the interval starting at x, or extends the previous one when record and network match. */
function appendInterval(out: FamilyMerge, x: bigint, rec: number, netPiece: number): void {
  const last = out.recs.length - 1;
  if (last >= 0 && out.recs[last] === rec && out.nets[last] === netPiece) return;
  out.starts.push(x);
  out.recs.push(rec);
  out.nets.push(netPiece);
}
