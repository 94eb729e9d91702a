/** ASN answers over a snapshot: info with prefixes, list reputation, name search, statistics. */
import { type AsnEntry, FLAG, NO_RECORD, RIRS, rangeToCidrs, type Snapshot } from '../dataset/index.ts';
import { wordsAt } from './engine.ts';
import type { Profile } from './profile.ts';
import type { AsnInfo, AsnPrefix, AsnReputation, AsnSearchResult, AsnStats } from './types.ts';

export interface AsnQuery {
  includePrefixes?: boolean;
  prefixLimit?: number;
}

export interface AsnAnswers {
  asn(asn: number, query?: AsnQuery): AsnInfo | null;
  asnReputation(asn: number): AsnReputation | null;
  searchAsn(q: string, limit?: number): AsnSearchResult;
  asnStats(): AsnStats;
}

interface AsnAnswersOptions {
  snapshot: Snapshot;
  asnMap: ReadonlyMap<number, AsnEntry>;
  profileOf: (rec: number) => Profile;
  recordAt: (family: 4 | 6, value: bigint) => number;
  reputationOf: (flags: number, asnDrop: boolean) => AsnReputation;
}

/** The ASN layer's pieces of one ASN: [family, index into the family's asnStarts/asnEnds]. */
type AsnPieces = [4 | 6, number][];

export function createAsnAnswers(options: AsnAnswersOptions): AsnAnswers {
  const { snapshot: s, asnMap, recordAt, reputationOf } = options;
  let asnPieces: Map<number, AsnPieces> | null = null;
  const piecesOf = (asn: number): AsnPieces => {
    asnPieces ??= indexAsnPieces(s);
    return asnPieces.get(asn) ?? [];
  };

  function asnInfo(asn: number, query: AsnQuery = {}): AsnInfo | null {
    const e = asnMap.get(asn);
    if (!e) return null;
    const info: AsnInfo = {
      asn: e.asn,
      name: e.name,
      country: e.country,
      rir: e.rir,
      allocation_date: e.allocation_date,
    };
    if (query.includePrefixes) addPrefixes(options, info, piecesOf(asn), query.prefixLimit ?? 100);
    return info;
  }

  function asnReputation(asn: number): AsnReputation | null {
    const e = asnMap.get(asn);
    if (!e) return null;
    let flags = 0;
    for (const [family, k] of piecesOf(asn)) {
      const t = family === 4 ? s.v4 : s.v6;
      const rec = recordAt(family, wordsAt(t.asnStarts, family, k));
      if (rec !== NO_RECORD) flags |= s.records.flags[rec] as number;
    }
    // Single-IP and per-prefix listings do not describe the whole ASN.
    return reputationOf(flags & (FLAG.UCE3 | FLAG.DROP | FLAG.EDROP), e.asn_drop);
  }

  function searchAsn(q: string, limit = 20): AsnSearchResult {
    const text = q.trim();
    const num = /^(?:AS)?(\d{1,10})$/i.exec(text);
    const hits: AsnEntry[] = [];
    if (num) {
      const e = asnMap.get(Number(num[1]));
      if (e) hits.push(e);
    } else if (text.length > 0) {
      for (const e of searchByName(s.asns, text.toLowerCase())) hits.push(e);
    }
    const results = hits
      .slice(0, Math.max(0, limit))
      .map((e) => ({ asn: e.asn, name: e.name, country: e.country, rir: e.rir }));
    return { results, count: hits.length };
  }

  function asnStats(): AsnStats {
    const by: Record<string, number> = Object.fromEntries(RIRS.map((r) => [r, 0]));
    for (const e of s.asns) if (e.rir) by[e.rir] = (by[e.rir] ?? 0) + 1;
    return { total_asns: s.asns.length, by_rir: by };
  }

  return { asn: asnInfo, asnReputation, searchAsn, asnStats };
}

/** The ASN layer's pieces of every ASN, both families (built on the first ASN question). */
function indexAsnPieces(s: Snapshot): Map<number, AsnPieces> {
  const asnPieces = new Map<number, AsnPieces>();
  for (const t of [s.v4, s.v6]) {
    for (let k = 0; k < t.asnAsns.length; k++) {
      const a = t.asnAsns[k] as number;
      let list = asnPieces.get(a);
      if (!list) {
        list = [];
        asnPieces.set(a, list);
      }
      list.push([t.family, k]);
    }
  }
  return asnPieces;
}

/**
 * Sets info.prefixes (the CIDRs of the ASN's pieces, at most `limit`, each with the profile of
 * its first address) and info.total_prefixes (all of them).
 */
function addPrefixes(options: AsnAnswersOptions, info: AsnInfo, pieces: AsnPieces, limit: number): void {
  const { snapshot: s, profileOf, recordAt } = options;
  const prefixes: AsnPrefix[] = [];
  let total = 0;
  for (const [family, k] of pieces) {
    const t = family === 4 ? s.v4 : s.v6;
    const start = wordsAt(t.asnStarts, family, k);
    const end = wordsAt(t.asnEnds, family, k);
    for (const cidr of rangeToCidrs(family, start, end)) {
      total++;
      if (prefixes.length >= limit) continue;
      const rec = recordAt(family, start);
      const p = rec === NO_RECORD ? null : profileOf(rec);
      prefixes.push({
        prefix: cidr,
        country: p?.country ?? null,
        is_datacenter: p?.netrep.is_datacenter ?? false,
        threat_score: p?.threat.score ?? 0,
      });
    }
  }
  info.prefixes = prefixes;
  info.total_prefixes = total;
}

/** ASNs whose name holds the needle: exact name first, then names starting with it, then by ASN. */
function searchByName(asns: readonly AsnEntry[], needle: string): AsnEntry[] {
  const scored: [number, AsnEntry][] = [];
  for (const e of asns) {
    const name = e.name.toLowerCase();
    const at = name.indexOf(needle);
    if (at === -1) continue;
    scored.push([name === needle ? 0 : at === 0 ? 1 : 2, e]);
  }
  scored.sort((a, b) => a[0] - b[0] || a[1].asn - b[1].asn);
  return scored.map(([, e]) => e);
}
