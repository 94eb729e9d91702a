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
import { CURATED_ASNS, classifyByName } from './asn-classes.ts';
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

export function buildProfile(
  s: Snapshot,
  rec: number,
  asnInfo: (asn: number) => AsnEntry | undefined,
): Profile {
  const r = s.records;
  const asn = (r.asn[rec] as number) || null;
  const asnName = s.strings[r.org[rec] as number] || null;
  const flags = r.flags[rec] as number;
  const cloud = s.strings[r.cloud[rec] as number] || null;
  const crawler = crawlerOf(s, rec);
  const aiCrawler = crawler !== null && isAiPurpose(crawler.purpose);
  const entry = asn ? asnInfo(asn) : undefined;
  const curated = asn ? CURATED_ASNS.get(asn) : undefined;
  const asClass = entry?.as_class ?? null;
  const byName = asnName ? classifyByName(asnName) : null;
  // Precedence (README.md): published ranges and lists, the curated table, CAIDA's AS class,
  // then name words; nothing matched leaves connection_type null.
  const datacenterBy: ProfileBasis['datacenter'] =
    cloud !== null
      ? 'cloud'
      : (flags & FLAG.DATACENTER_LIST) !== 0
        ? 'list'
        : entry?.datacenter === true
          ? 'asn-list'
          : curated?.kind === 'hosting'
            ? 'curated'
            : !curated && asClass === 'content'
              ? 'as-class'
              : !curated && asClass === null && byName === 'hosting'
                ? 'name'
                : null;
  const datacenter = datacenterBy !== null;
  let connectionType: ConnectionType | null = null;
  let connectionBy: ProfileBasis['connection'] = 'none';
  if (datacenter) {
    connectionType = 'datacenter';
    connectionBy = 'datacenter';
  } else if (curated && curated.kind !== 'hosting') {
    connectionType = curated.kind === 'isp' ? 'residential' : curated.kind;
    connectionBy = 'curated';
  } else if (asClass === 'transit_access') {
    // An access network: residential, unless the name says it is a mobile carrier.
    connectionType = byName === 'mobile' ? 'mobile' : 'residential';
    connectionBy = byName === 'mobile' ? 'as-class-name' : 'as-class';
  } else if (asClass === 'enterprise') {
    // A network for its own use: a university by its name, otherwise a business.
    connectionType = byName === 'education' ? 'education' : 'business';
    connectionBy = byName === 'education' ? 'as-class-name' : 'as-class';
  } else if (byName === 'education' || byName === 'mobile') {
    connectionType = byName;
    connectionBy = 'name';
  }
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
  const c: Contribution[] = [];
  if ((flags & (FLAG.DROP | FLAG.EDROP)) !== 0 || asnDrop) {
    const what =
      (flags & FLAG.DROP) !== 0
        ? 'prefix on Spamhaus DROP'
        : (flags & FLAG.EDROP) !== 0
          ? 'prefix on Spamhaus EDROP'
          : `AS${asn} on Spamhaus ASN-DROP`;
    c.push({ points: POINTS.drop, reason: what });
  }
  if ((flags & FLAG.UCE3) !== 0) c.push({ points: POINTS.uce3, reason: 'ASN on UCEPROTECT level 3' });
  if ((flags & FLAG.UCE2) !== 0) c.push({ points: POINTS.uce2, reason: 'prefix on UCEPROTECT level 2' });
  if ((flags & FLAG.UCE1) !== 0) c.push({ points: POINTS.uce1, reason: 'IP on UCEPROTECT level 1' });
  if (isTor) c.push({ points: POINTS.tor, reason: 'Tor exit relay' });
  if (isProxy) c.push({ points: POINTS.proxy, reason: 'public proxy' });
  if (isVpn) c.push({ points: POINTS.vpn, reason: 'VPN network' });
  // CONTRACT §6: datacenter counts unless the address is a known company's AI crawler.
  if (datacenter && !aiCrawler) c.push({ points: POINTS.datacenter, reason: 'datacenter network' });
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
