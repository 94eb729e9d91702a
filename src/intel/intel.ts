/**
 * createIntel: IP and ASN answers over one loaded snapshot. The hot path (`lookup`) is a
 * bucketed binary search over intervals cut where the prefix changes, plus a cached
 * per-interval template (profile and prefix); only the answer object is new.
 */
import path from 'node:path';
import { type Clock, systemClock } from '../core/clock.ts';
import { intToIpv4, type ParsedIp } from '../core/ip.ts';
import {
  type AsnEntry,
  type DbipCityReader,
  FLAG,
  loadHistory,
  NO_RECORD,
  openDbipCity,
  RIRS,
  rangeToCidrs,
  type Snapshot,
} from '../dataset/index.ts';
import { bogonV4, bogonV6 } from './bogon.ts';
import {
  blockLengthV4,
  cidrAroundV6,
  findPairV4,
  findV4,
  findV6,
  findV6Fine,
  formatV6Words,
  pairsV4,
  pieceHiV4,
  pieceLoV4,
  pieceV6,
  splitByPrefixV4,
  splitByPrefixV6,
  v6Words,
  wordsAt,
} from './engine.ts';
import { consensusOf, geolocationOf, type ProviderOpinion } from './geo.ts';
import { buildProfile, type Profile, unpackCountry } from './profile.ts';
import { provenanceOf } from './provenance.ts';
import { validateOrigin } from './rpki.ts';
import { type Contribution, POINTS, scoreThreat } from './threat.ts';
import { createHistoryIndex, geoStability, type HistoryIndex } from './timeline.ts';
import type {
  AsnInfo,
  AsnPrefix,
  AsnReputation,
  AsnSearchResult,
  AsnStats,
  GeoStability,
  IpAnswer,
  IpAnswerExtended,
  Threat,
  ThreatSignalSource,
} from './types.ts';

export interface IntelOptions {
  snapshot: Snapshot;
  signals?: ThreatSignalSource;
  reverseDns?: (ip: string) => Promise<string | null>;
  clock?: Clock;
}

export interface AsnQuery {
  includePrefixes?: boolean;
  prefixLimit?: number;
}

export interface Intel {
  datasetVersion: number;
  lookup(ip: ParsedIp): IpAnswer | null;
  lookupExtended(ip: ParsedIp): Promise<IpAnswerExtended | null>;
  /** geo_stability of the address over the dataset history (null for bogons and unknown space). */
  geoStability(ip: ParsedIp): GeoStability | null;
  asn(asn: number, query?: AsnQuery): AsnInfo | null;
  asnReputation(asn: number): AsnReputation | null;
  searchAsn(q: string, limit?: number): AsnSearchResult;
  asnStats(): AsnStats;
}

const NO_SIGNALS: ThreatSignalSource = { listingFor: () => null, pristineTrapHitRecent: () => false };
// asn_reputation lists the reputation lists (DROP family, UCEPROTECT), not the classification sources.
const REPUTATION_SOURCE = /^(spamhaus|uceprotect)/;

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

function bogonAnswer(ip: ParsedIp, prefix: string): IpAnswer {
  return {
    ip: ip.address,
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

/** What an answer takes from a record's profile. */
type AnswerProfile = Pick<
  Profile,
  'asn' | 'asnName' | 'country' | 'rir' | 'connectionType' | 'netrep' | 'contributions' | 'threat'
>;

/** A record's profile copied per interval (one object read on the hot path, not two). */
interface IntervalTemplate extends AnswerProfile {
  /** The prefix of every address of the (cut) interval. */
  prefix: string;
}

/**
 * A lazily filled table of n values: an Int32Array of slots into a packed array. (A plain
 * `new Array(n)` of this size is a dictionary in V8: a hash lookup on every read.)
 */
interface LazyTable<T> {
  get(i: number): T | undefined;
  set(i: number, value: T): void;
}

function lazyTable<T>(n: number): LazyTable<T> {
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

export function createIntel(options: IntelOptions): Intel {
  const s = options.snapshot;
  const signals = options.signals ?? NO_SIGNALS;
  const clock = options.clock ?? systemClock;
  const asnMap = new Map<number, AsnEntry>();
  for (const a of s.asns) asnMap.set(a.asn, a);
  const profiles = lazyTable<Profile>(s.records.count);
  const profileOf = (rec: number): Profile => {
    let p = profiles.get(rec);
    if (!p) {
      p = buildProfile(s, rec, (asn) => asnMap.get(asn));
      profiles.set(rec, p);
    }
    return p;
  };
  const words = new Uint32Array(4);

  const hasSignals = options.signals !== undefined;

  function threatFor(ip: string, p: AnswerProfile): Threat {
    if (!hasSignals) return p.threat;
    const listing = signals.listingFor(ip);
    const trap = signals.pristineTrapHitRecent(ip);
    if (!listing && !trap) return p.threat;
    const c: Contribution[] = [];
    if (listing) {
      const bad = listing.type === 'malware' || listing.type === 'phishing';
      c.push({
        points: bad ? POINTS.listingMalware : POINTS.listingSpam,
        reason: `active blocklist listing (${listing.type})`,
      });
    }
    c.push(...p.contributions);
    if (trap) c.push({ points: POINTS.trap, reason: 'pristine spam trap hit in the last 30 days' });
    return scoreThreat(c);
  }

  function answerOf(ip: ParsedIp, t: IntervalTemplate): IpAnswer {
    return {
      ip: ip.address,
      prefix: t.prefix,
      asn: t.asn,
      asn_name: t.asnName,
      country: t.country,
      rir: t.rir,
      connection_type: t.connectionType,
      bogon: false,
      netrep: t.netrep,
      threat: threatFor(ip.address, t),
    };
  }

  function v6Value(): bigint {
    return (
      (BigInt(words[0] as number) << 96n) |
      (BigInt(words[1] as number) << 64n) |
      (BigInt(words[2] as number) << 32n) |
      BigInt(words[3] as number)
    );
  }

  // Per interval, built on first use: its record's profile and its prefix. One slot read and
  // one object on the hot path instead of the record, piece and profile tables (each a likely
  // cache miss on random addresses). The intervals are cut where the prefix changes
  // (splitByPrefixV4/V6), so every template has its prefix and an answer reads it. IPv4: the
  // slots sit beside the cut starts they are searched by (pairsV4), so the slot is in a cache
  // line the search already read. IPv6: a packed array of slots (filled by push: `new Array(n)`
  // of this size is a dictionary).
  const cut4 = splitByPrefixV4(s.v4);
  const pairs4 = pairsV4<IntervalTemplate>(cut4.starts);
  const cut6 = splitByPrefixV6(s.v6);
  const templates6: (IntervalTemplate | null)[] = [];
  for (let k = 0; k < cut6.origin.length; k++) templates6.push(null);

  function templateOf(p: Profile, prefix: string): IntervalTemplate {
    return {
      asn: p.asn,
      asnName: p.asnName,
      country: p.country,
      rir: p.rir,
      connectionType: p.connectionType,
      netrep: p.netrep,
      contributions: p.contributions,
      threat: p.threat,
      prefix,
    };
  }

  /** The template of cut interval j (in snapshot interval i, record rec). */
  function template4(j: number, i: number, rec: number): IntervalTemplate {
    const start = cut4.starts[j] as number;
    const len = blockLengthV4(pieceLoV4(s.v4, i), pieceHiV4(s.v4, i), start);
    const network = len === 0 ? 0 : (start & (0xffffffff << (32 - len))) >>> 0;
    const t = templateOf(profileOf(rec), `${intToIpv4(network)}/${len}`);
    pairs4[2 * j + 1] = t;
    return t;
  }

  const lo6 = new Uint32Array(4);
  const hi6 = new Uint32Array(4);
  const network6 = new Uint32Array(4);
  const bcast6 = new Uint32Array(4);

  /** The template of cut interval j (in snapshot interval i, record rec). */
  function template6(j: number, i: number, rec: number): IntervalTemplate {
    pieceV6(s.v6, i, lo6, hi6);
    const len = cidrAroundV6(cut6.starts.subarray(j * 4, j * 4 + 4), lo6, hi6, network6, bcast6);
    const n = network6;
    const text = formatV6Words(n[0] as number, n[1] as number, n[2] as number, n[3] as number);
    const t = templateOf(profileOf(rec), `${text}/${len}`);
    templates6[j] = t;
    return t;
  }

  function lookup(ip: ParsedIp): IpAnswer | null {
    const b = ip.bytes;
    if (ip.family === 4) {
      const n =
        (((b[0] as number) << 24) | ((b[1] as number) << 16) | ((b[2] as number) << 8) | (b[3] as number)) >>>
        0;
      const bogon = bogonV4(n);
      if (bogon) return bogonAnswer(ip, bogon);
      const j = findPairV4(pairs4, cut4.index, n);
      if (j < 0) return null;
      let t = pairs4[2 * j + 1] as IntervalTemplate | null;
      if (t === null) {
        const i = cut4.origin[j] as number;
        const rec = s.v4.recs[i] as number;
        if (rec === NO_RECORD) return null;
        t = template4(j, i, rec);
      }
      return answerOf(ip, t);
    }
    v6Words(b, words);
    const w0 = words[0] as number;
    // Global unicast (2000::/3) outside the documentation blocks goes straight to the search.
    if (w0 >>> 29 !== 1 || w0 === 0x20010db8 || w0 >>> 20 === 0x3ff) {
      const bogon = bogonV6(w0, v6Value());
      if (bogon) return bogonAnswer(ip, bogon);
    }
    const w1 = words[1] as number;
    const j = findV6Fine(cut6.starts, cut6.fine, cut6.keys, w0, w1, words[2] as number, words[3] as number);
    if (j < 0) return null;
    let t = templates6[j] as IntervalTemplate | null;
    if (t === null) {
      const i = cut6.origin[j] as number;
      const rec = s.v6.recs[i] as number;
      if (rec === NO_RECORD) return null;
      t = template6(j, i, rec);
    }
    return answerOf(ip, t);
  }

  let dbip: Promise<DbipCityReader> | null = null;
  let history: HistoryIndex | null = null;
  const historyIndex = (): HistoryIndex => {
    if (!history) {
      const dataDir = path.dirname(path.dirname(s.dir));
      history = createHistoryIndex(loadHistory(dataDir).filter((h) => h.to_version <= s.version));
    }
    return history;
  };
  const reputationSources = s.manifest.sources.map((x) => x.id).filter((id) => REPUTATION_SOURCE.test(id));
  const datasetVersions = Object.fromEntries(
    reputationSources.map((id) => [id, s.manifest.source_versions[id] ?? s.version]),
  );

  function reputationOf(flags: number, asnDrop: boolean): AsnReputation {
    return {
      uce_level1: (flags & FLAG.UCE1) !== 0,
      uce_level2: (flags & FLAG.UCE2) !== 0,
      uce_level3: (flags & FLAG.UCE3) !== 0,
      provider_drop: (flags & FLAG.DROP) !== 0 || asnDrop,
      provider_edrop: (flags & FLAG.EDROP) !== 0,
      sources: reputationSources,
      dataset_versions: datasetVersions,
      last_checked: s.createdAt,
    };
  }

  async function lookupExtended(ip: ParsedIp): Promise<IpAnswerExtended | null> {
    const base = lookup(ip);
    if (!base) return null;
    const out: IpAnswerExtended = { ...base };
    const hostname = options.reverseDns ? await options.reverseDns(ip.address).catch(() => null) : null;
    if (hostname) out.hostname = hostname;
    if (base.bogon) return out;
    const t = ip.family === 4 ? s.v4 : s.v6;
    let value = 0n;
    for (const x of ip.bytes) value = (value << 8n) | BigInt(x);
    const i =
      ip.family === 4
        ? findV4(t, Number(value))
        : findV6(t, ...(v6All(ip.bytes) as [number, number, number, number]));
    const rec = t.recs[i] as number;
    const p = profileOf(rec);
    if (p.asnName) out.organization = p.asnName;
    const provider = p.netrep.cloud_provider ?? p.asnName;
    if (provider) out.provider = provider;
    const [pfxText, lenText] = base.prefix.split('/');
    const pfx = pfxText ?? '';
    let network = 0n;
    if (ip.family === 4) network = BigInt(pfx.split('.').reduce((a, o) => a * 256 + Number(o), 0));
    else network = (value >> BigInt(128 - Number(lenText))) << BigInt(128 - Number(lenText));
    if (s.manifest.counts.roas > 0)
      out.rpki_status = validateOrigin(
        ip.family === 4 ? s.roas4 : s.roas6,
        ip.family,
        network,
        Number(lenText),
        p.asn,
      );
    dbip ??= openDbipCity(s.manifest.dbip_city);
    const city = (await dbip.catch(() => null))?.lookup(ip.address, ip.family) ?? null;
    if (city) out.geolocation = geolocationOf(city);
    const r = s.records;
    const opinions: ProviderOpinion[] = [];
    if (city) opinions.push({ provider: 'dbip-city', country: city.country, city: city.city });
    opinions.push({
      provider: 'geo-whois-asn-country',
      country: unpackCountry(r.whoisCountry[rec] as number),
      city: null,
    });
    opinions.push({
      provider: 'asn-country',
      country: unpackCountry(r.asnCountry[rec] as number),
      city: null,
    });
    const gf = r.geofeed[rec] as number;
    if (gf >= 0)
      opinions.push({
        provider: 'geofeed',
        country: s.strings[s.geofeeds[gf * 4] as number] || null,
        city: s.strings[s.geofeeds[gf * 4 + 2] as number] || null,
      });
    out.geo_consensus = consensusOf(opinions.filter((o) => o.country !== null));
    const timeline = historyIndex().changesFor(ip.family, value);
    out.ownership_timeline = timeline;
    out.geo_stability = geoStability(timeline, clock());
    out.asn_reputation = reputationOf(p.flags, p.asnDrop);
    out.provenance = provenanceOf(s, rec, p);
    return out;
  }

  function geoStabilityOf(ip: ParsedIp): GeoStability | null {
    const base = lookup(ip);
    if (!base || base.bogon) return null;
    let value = 0n;
    for (const x of ip.bytes) value = (value << 8n) | BigInt(x);
    return geoStability(historyIndex().changesFor(ip.family, value), clock());
  }

  let asnPieces: Map<number, [4 | 6, number][]> | null = null;
  const piecesOf = (asn: number): [4 | 6, number][] => {
    if (!asnPieces) {
      asnPieces = new Map();
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
    }
    return asnPieces.get(asn) ?? [];
  };

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
    if (query.includePrefixes) {
      const limit = query.prefixLimit ?? 100;
      const prefixes: AsnPrefix[] = [];
      let total = 0;
      for (const [family, k] of piecesOf(asn)) {
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
      const needle = text.toLowerCase();
      const scored: [number, AsnEntry][] = [];
      for (const e of s.asns) {
        const name = e.name.toLowerCase();
        const at = name.indexOf(needle);
        if (at === -1) continue;
        scored.push([name === needle ? 0 : at === 0 ? 1 : 2, e]);
      }
      scored.sort((a, b) => a[0] - b[0] || a[1].asn - b[1].asn);
      for (const [, e] of scored) hits.push(e);
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

  return {
    datasetVersion: s.version,
    lookup,
    lookupExtended,
    geoStability: geoStabilityOf,
    asn: asnInfo,
    asnReputation,
    searchAsn,
    asnStats,
  };
}

function v6All(bytes: readonly number[]): number[] {
  const w = new Uint32Array(4);
  v6Words(bytes, w);
  return [...w];
}
