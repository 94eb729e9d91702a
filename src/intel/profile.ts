/**
 * Per-record classification, computed once per record and shared by every answer that hits
 * it: connection type, the netrep flags and the static part of the threat score.
 */
import {
  type AsnEntry,
  type CrawlerPurpose,
  FLAG,
  isAiPurpose,
  RIRS,
  type Snapshot,
  UPSTREAM_SOURCES,
} from '../dataset/index.ts';
import { type AsnClass, CURATED_ASNS, type CuratedAsn, classifyByName } from './asn-classes.ts';
import { type Contribution, POINTS, scoreThreat } from './threat.ts';
import type { ConnectionType, NetrepFlags, Threat } from './types.ts';

export interface Profile {
  asn: number | null;
  asnName: string | null;
  country: string | null;
  rir: string | null;
  /** null: no rule classified the network (README.md). */
  connectionType: ConnectionType | null;
  netrep: NetrepFlags;
  /** Static contributions (everything but blocklist listings and trap hits). */
  contributions: Contribution[];
  threat: Threat;
  flags: number;
  asnDrop: boolean;
  /** The crawler whose published range holds the address (any purpose), or null. */
  crawler: CrawlerInfo | null;
  /** Which rule decided the classification (provenance.ts names its sources). */
  basis: ProfileBasis;
}

export interface ProfileBasis {
  /** What made the address a datacenter, null when it is not one. */
  datacenter: 'cloud' | 'list' | 'asn-list' | 'curated' | 'as-class' | 'name' | null;
  /**
   * The connection type came from: datacenter evidence, the curated table, CAIDA's AS class
   * (alone, or refined by name words), name words, or nothing (connection_type null).
   */
  connection: 'datacenter' | 'curated' | 'as-class' | 'as-class-name' | 'name' | 'none';
  /** cloud_provider from a published range or from the curated table. */
  provider: 'cloud' | 'curated' | null;
  vpnByAsn: boolean;
}

export function unpackCountry(c: number): string | null {
  return c ? String.fromCharCode(c >> 8, c & 255) : null;
}

/** A published crawler range's crawler: its operator, name and purpose (dataset sources.ts). */
export interface CrawlerInfo {
  operator: string;
  name: string;
  purpose: CrawlerPurpose;
  /** The source file the range came from. */
  source: string;
}

const crawlerTables = new WeakMap<Snapshot, Map<string, { name: string; purpose: CrawlerPurpose }>>();

/**
 * Crawler name and purpose by source id: from the snapshot's manifest, or, for snapshots built
 * before the manifest carried them, from the source table of this netrep (same ids).
 */
function crawlerTable(s: Snapshot): Map<string, { name: string; purpose: CrawlerPurpose }> {
  let t = crawlerTables.get(s);
  if (!t) {
    t = new Map();
    for (const x of UPSTREAM_SOURCES) if (x.crawler) t.set(x.id, x.crawler);
    for (const x of s.manifest.sources) if (x.crawler) t.set(x.id, x.crawler);
    crawlerTables.set(s, t);
  }
  return t;
}

/** The crawler whose published range holds record `rec`, or null. */
export function crawlerOf(s: Snapshot, rec: number): CrawlerInfo | null {
  const operator = s.strings[s.records.ai[rec] as number] || null;
  if (!operator) return null;
  const source = s.provenance[s.records.prov[rec] as number]?.ai ?? null;
  const known = source ? crawlerTable(s).get(source) : undefined;
  // A range file without a declared purpose (a custom source list) counts as an AI crawler, as
  // every crawler file did before purposes existed.
  return {
    operator,
    name: known?.name ?? operator,
    purpose: known?.purpose ?? 'ai_training',
    source: source ?? '',
  };
}

/** The anonymity a proxy list states, from the record's flag bits. */
export function proxyAnonymity(flags: number): 'transparent' | 'anonymous' | 'elite' | null {
  if ((flags & FLAG.PROXY_ELITE) !== 0) return 'elite';
  if ((flags & FLAG.PROXY_ANONYMOUS) !== 0) return 'anonymous';
  if ((flags & FLAG.PROXY_TRANSPARENT) !== 0) return 'transparent';
  return null;
}

/** What a record's classification is decided from. */
export interface NetworkEvidence {
  /** The cloud whose published range holds the address. */
  cloud: string | null;
  /** The record's flag bits (dataset FLAG). */
  flags: number;
  /** The origin ASN's table entry. */
  entry: AsnEntry | undefined;
  curated: CuratedAsn | undefined;
  /** CAIDA's class of the ASN. */
  asClass: AsnEntry['as_class'] | null;
  /** What the ASN's name words say (asn-classes.ts classifyByName). */
  byName: AsnClass | null;
}

/**
 * What makes the address a datacenter, null when nothing does. Precedence (README.md):
 * published ranges and lists, the curated table, CAIDA's AS class, then name words.
 */
export function datacenterBasis(e: NetworkEvidence): ProfileBasis['datacenter'] {
  if (e.cloud !== null) return 'cloud';
  if ((e.flags & FLAG.DATACENTER_LIST) !== 0) return 'list';
  if (e.entry?.datacenter === true) return 'asn-list';
  if (e.curated?.kind === 'hosting') return 'curated';
  if (e.curated) return null;
  if (e.asClass === 'content') return 'as-class';
  return e.asClass === null && e.byName === 'hosting' ? 'name' : null;
}

/**
 * The connection type and the rule that gave it, after the datacenter evidence: the curated
 * table, CAIDA's AS class (refined by name words), name words; nothing matched leaves it null.
 */
export function connectionOf(
  datacenter: boolean,
  e: NetworkEvidence,
): { type: ConnectionType | null; by: ProfileBasis['connection'] } {
  const { curated, asClass, byName } = e;
  if (datacenter) return { type: 'datacenter', by: 'datacenter' };
  if (curated && curated.kind !== 'hosting') {
    return { type: curated.kind === 'isp' ? 'residential' : curated.kind, by: 'curated' };
  }
  if (asClass === 'transit_access') {
    // An access network: residential, unless the name says it is a mobile carrier.
    return byName === 'mobile'
      ? { type: 'mobile', by: 'as-class-name' }
      : { type: 'residential', by: 'as-class' };
  }
  if (asClass === 'enterprise') {
    // A network for its own use: a university by its name, otherwise a business.
    return byName === 'education'
      ? { type: 'education', by: 'as-class-name' }
      : { type: 'business', by: 'as-class' };
  }
  if (byName === 'education' || byName === 'mobile') return { type: byName, by: 'name' };
  return { type: null, by: 'none' };
}

/** The threat score's static contributions (CONTRACT §6): lists, Tor, proxy, VPN, datacenter. */
export function staticContributions(
  flags: number,
  asn: number | null,
  asnDrop: boolean,
  netrep: NetrepFlags,
): Contribution[] {
  const c: Contribution[] = [];
  if ((flags & (FLAG.DROP | FLAG.EDROP)) !== 0 || asnDrop) {
    c.push({ points: POINTS.drop, reason: dropReason(flags, asn) });
  }
  if ((flags & FLAG.UCE3) !== 0) c.push({ points: POINTS.uce3, reason: 'ASN on UCEPROTECT level 3' });
  if ((flags & FLAG.UCE2) !== 0) c.push({ points: POINTS.uce2, reason: 'prefix on UCEPROTECT level 2' });
  if ((flags & FLAG.UCE1) !== 0) c.push({ points: POINTS.uce1, reason: 'IP on UCEPROTECT level 1' });
  if (netrep.is_tor_exit) c.push({ points: POINTS.tor, reason: 'Tor exit relay' });
  if (netrep.is_proxy) c.push({ points: POINTS.proxy, reason: 'public proxy' });
  if (netrep.is_vpn) c.push({ points: POINTS.vpn, reason: 'VPN network' });
  // CONTRACT §6: datacenter counts unless the address is a known company's AI crawler.
  if (netrep.is_datacenter && !netrep.is_ai_crawler) {
    c.push({ points: POINTS.datacenter, reason: 'datacenter network' });
  }
  return c;
}

function dropReason(flags: number, asn: number | null): string {
  if ((flags & FLAG.DROP) !== 0) return 'prefix on Spamhaus DROP';
  if ((flags & FLAG.EDROP) !== 0) return 'prefix on Spamhaus EDROP';
  return `AS${asn} on Spamhaus ASN-DROP`;
}

/** The evidence of record `rec`, whose ASN is `asn` (null: none) named `asnName`. */
function evidenceOf(
  s: Snapshot,
  rec: number,
  asn: number | null,
  asnName: string | null,
  asnInfo: (asn: number) => AsnEntry | undefined,
): NetworkEvidence {
  const r = s.records;
  const entry = asn ? asnInfo(asn) : undefined;
  return {
    cloud: s.strings[r.cloud[rec] as number] || null,
    flags: r.flags[rec] as number,
    entry,
    curated: asn ? CURATED_ASNS.get(asn) : undefined,
    asClass: entry?.as_class ?? null,
    byName: asnName ? classifyByName(asnName) : null,
  };
}

export function buildProfile(
  s: Snapshot,
  rec: number,
  asnInfo: (asn: number) => AsnEntry | undefined,
): Profile {
  const r = s.records;
  const asn = (r.asn[rec] as number) || null;
  const asnName = s.strings[r.org[rec] as number] || null;
  const crawler = crawlerOf(s, rec);
  const aiCrawler = crawler !== null && isAiPurpose(crawler.purpose);
  const evidence = evidenceOf(s, rec, asn, asnName, asnInfo);
  const { cloud, flags, entry, curated } = evidence;
  const datacenterBy = datacenterBasis(evidence);
  const datacenter = datacenterBy !== null;
  const { type: connectionType, by: connectionBy } = connectionOf(datacenter, evidence);
  const curatedProvider = datacenter ? (curated?.provider ?? null) : null;
  const provider = cloud ?? curatedProvider;
  const isVpn = (flags & FLAG.VPN) !== 0 || entry?.vpn === true;
  const isTor = (flags & FLAG.TOR_EXIT) !== 0;
  const isProxy = (flags & FLAG.PROXY) !== 0;
  const netrep: NetrepFlags = {
    is_datacenter: datacenter,
    is_tor_exit: isTor,
    is_proxy: isProxy,
    is_vpn: isVpn,
    is_residential: connectionType === 'residential',
    is_mobile: connectionType === 'mobile',
    is_ai_crawler: aiCrawler,
  };
  if (aiCrawler && crawler) netrep.ai_company = crawler.operator;
  if (provider) netrep.cloud_provider = provider;
  const asnDrop = entry?.asn_drop === true;
  const c = staticContributions(flags, asn, asnDrop, netrep);
  const rirIndex = r.rir[rec] as number;
  return {
    asn,
    asnName,
    country: unpackCountry(r.country[rec] as number),
    rir: rirIndex ? (RIRS[rirIndex - 1] ?? null) : null,
    connectionType,
    netrep: Object.freeze(netrep) as NetrepFlags,
    contributions: c,
    threat: Object.freeze(scoreThreat(c)) as Threat,
    flags,
    asnDrop,
    crawler,
    basis: {
      datacenter: datacenterBy,
      connection: connectionBy,
      provider: cloud !== null ? 'cloud' : curatedProvider !== null ? 'curated' : null,
      vpnByAsn: entry?.vpn === true,
    },
  };
}
