/**
 * The ASN table of a snapshot (`asns.json`): every ASN with address rows, named by the
 * organization on its widest span, plus the ASN-DROP ASNs without any; country and RIR from RIR
 * statistics, else from the merged addresses (README.md).
 */
import { rirForCountry } from './country-rir.ts';
import type { Rir } from './importers/rir-delegated.ts';
import type { AddrRange } from './importers/types.ts';
import type { Inputs } from './input-rows.ts';
import type { FamilyMerge, MergeContext } from './merge-context.ts';
import type { AsnEntry } from './types.ts';

function unpackCountry(c: number): string | null {
  return c ? String.fromCharCode(c >> 8, c & 255) : null;
}

type RirAsn = { rir: Rir; country: string | null; date: string | null };

/** The entries of every ASN the inputs name, ascending by ASN. */
export function asnTable(inputs: Inputs, ctx: MergeContext, merged: FamilyMerge[]): AsnEntry[] {
  const rirAsn = new Map<number, RirAsn>();
  for (const r of inputs.rirAsns) {
    for (let k = 0; k < r.count && k < 65536; k++)
      rirAsn.set(r.firstAsn + k, { rir: r.rir, country: r.country, date: r.date });
  }
  const { best, weights } = spansOfAsns(inputs, ctx, merged);
  const out: AsnEntry[] = [];
  for (const [asn, b] of best) out.push(asnEntry(inputs, asn, b.org, rirAsn.get(asn), weights.get(asn)));
  for (const [asn, d] of inputs.asnDrop) {
    if (best.has(asn)) continue;
    const rir = rirAsn.get(asn);
    out.push({
      asn,
      name: d.name ?? '',
      country: d.country,
      rir: rir?.rir ?? null,
      allocation_date: rir?.date ?? null,
      datacenter: false,
      vpn: false,
      asn_drop: true,
      as_class: inputs.asClasses.get(asn)?.class ?? null,
      as_class_basis: inputs.asClasses.get(asn)?.basis ?? null,
    });
  }
  return out.sort((a, b) => a.asn - b.asn);
}

/** The entry of an ASN with address rows: named by its widest span's organization. */
function asnEntry(
  inputs: Inputs,
  asn: number,
  org: string,
  rir: RirAsn | undefined,
  weights: Map<string, bigint> | undefined,
): AsnEntry {
  const country = rir?.country ?? majority(weights);
  // RIR statistics first; otherwise the documented country fallback (README.md).
  const registry: Rir | null = rir?.rir ?? rirForCountry(country);
  return {
    asn,
    name: org,
    country,
    rir: registry,
    allocation_date: rir?.date ?? null,
    datacenter: inputs.datacenterAsns.has(asn),
    vpn: inputs.vpnAsns.has(asn),
    asn_drop: inputs.asnDrop.has(asn),
    as_class: inputs.asClasses.get(asn)?.class ?? null,
    as_class_basis: inputs.asClasses.get(asn)?.basis ?? null,
  };
}

/**
 * Name: the organization on the widest address span of the ASN. Country without RIR data:
 * the country holding most of its IPv4 addresses (IPv6 row count when it has no IPv4), so
 * per ASN the addresses (IPv6: rows) in each country.
 */
function spansOfAsns(
  inputs: Inputs,
  ctx: MergeContext,
  merged: FamilyMerge[],
): { best: Map<number, { size: bigint; org: string }>; weights: Map<number, Map<string, bigint>> } {
  const best = new Map<number, { size: bigint; org: string }>();
  const weights = new Map<number, Map<string, bigint>>();
  for (const row of inputs.asn) {
    const size = row.end - row.start;
    const cur = best.get(row.asn);
    if (!cur || size > cur.size) best.set(row.asn, { size, org: row.org });
    const cc = countryAt(ctx, merged, row);
    if (!cc) continue;
    let w = weights.get(row.asn);
    if (!w) {
      w = new Map();
      weights.set(row.asn, w);
    }
    w.set(cc, (w.get(cc) ?? 0n) + (row.family === 4 ? size + 1n : 1n));
  }
  return { best, weights };
}

/** The country of the merged interval holding a row's first address. */
function countryAt(ctx: MergeContext, merged: FamilyMerge[], row: AddrRange): string | null {
  const m = merged[row.family === 4 ? 0 : 1] as FamilyMerge;
  let lo = 0;
  let hi = m.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((m.starts[mid] as bigint) <= row.start) lo = mid;
    else hi = mid - 1;
  }
  const rec = m.recs[lo] as number;
  return rec === undefined || rec < 0
    ? null
    : unpackCountry((ctx.records[rec] as { country: number }).country);
}

/** The country with the most weight (the first of equals), null without any. */
function majority(weights: Map<string, bigint> | undefined): string | null {
  let top: string | null = null;
  let topW = -1n;
  for (const [cc, w] of weights ?? []) {
    if (w > topW) {
      top = cc;
      topW = w;
    }
  }
  return top;
}
