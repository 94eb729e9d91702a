/**
 * The anonymous answer's extras over the base lookup: organization and provider, RPKI origin
 * validation, DB-IP geolocation and the country consensus, the ownership timeline and geo
 * stability across dataset versions, the ASN's list reputation and provenance.
 */
import path from 'node:path';
import type { Clock } from '../core/clock.ts';
import type { ParsedIp } from '../core/ip.ts';
import {
  type DbipCityReader,
  FLAG,
  loadHistory,
  NO_RECORD,
  openDbipCity,
  type Snapshot,
} from '../dataset/index.ts';
import { consensusOf, geolocationOf, type ProviderOpinion } from './geo.ts';
import type { Lookup } from './lookup.ts';
import { type Profile, proxyAnonymity, unpackCountry } from './profile.ts';
import { provenanceOf } from './provenance.ts';
import { validateOrigin } from './rpki.ts';
import { createHistoryIndex, geoStability, type HistoryIndex } from './timeline.ts';
import type { AsnReputation, GeoStability, IpAnswerExtended } from './types.ts';

type DbipCity = NonNullable<ReturnType<DbipCityReader['lookup']>>;

// asn_reputation lists the reputation lists (DROP family, UCEPROTECT), not the classification sources.
const REPUTATION_SOURCE = /^(spamhaus|uceprotect)/;

export interface ExtendedAnswers {
  lookupExtended(ip: ParsedIp): Promise<IpAnswerExtended | null>;
  geoStability(ip: ParsedIp): GeoStability | null;
  /** asn_reputation from a record's flags and the ASN's ASN-DROP entry. */
  reputationOf(flags: number, asnDrop: boolean): AsnReputation;
}

export function createExtendedAnswers(options: {
  snapshot: Snapshot;
  lookup: Lookup;
  profileOf: (rec: number) => Profile;
  reverseDns?: ((ip: string) => Promise<string | null>) | undefined;
  clock: Clock;
}): ExtendedAnswers {
  const { snapshot: s, profileOf, reverseDns, clock } = options;
  const { lookup, recordAt } = options.lookup;
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
    const hostname = reverseDns ? await reverseDns(ip.address).catch(() => null) : null;
    if (hostname) out.hostname = hostname;
    if (base.bogon) return out;
    const value = addressValue(ip);
    const rec = recordAt(ip.family, value);
    if (rec === NO_RECORD) return out;
    const p = profileOf(rec);
    addOwner(out, p);
    if (s.manifest.counts.roas > 0) out.rpki_status = rpkiStatusOf(s, ip, value, base.prefix, p.asn);
    dbip ??= openDbipCity(s.manifest.dbip_city);
    const city = (await dbip.catch(() => null))?.lookup(ip.address, ip.family) ?? null;
    if (city) out.geolocation = geolocationOf(city);
    out.geo_consensus = consensusOf(countryOpinions(s, rec, city).filter((o) => o.country !== null));
    const timeline = historyIndex().changesFor(ip.family, value);
    out.ownership_timeline = timeline;
    out.geo_stability = geoStability(timeline, clock());
    out.asn_reputation = reputationOf(p.flags, p.asnDrop);
    addCrawlerAndProxy(out, p);
    out.provenance = provenanceOf(s, rec, p);
    return out;
  }

  function geoStabilityOf(ip: ParsedIp): GeoStability | null {
    const base = lookup(ip);
    if (!base || base.bogon) return null;
    return geoStability(historyIndex().changesFor(ip.family, addressValue(ip)), clock());
  }

  return { lookupExtended, geoStability: geoStabilityOf, reputationOf };
}

/** organization (the ASN's name) and provider (the cloud's, else the ASN's name), when known. */
function addOwner(out: IpAnswerExtended, p: Profile): void {
  if (p.asnName) out.organization = p.asnName;
  const provider = p.netrep.cloud_provider ?? p.asnName;
  if (provider) out.provider = provider;
}

/** crawler (for a crawler range) and proxy (for a listed proxy). */
function addCrawlerAndProxy(out: IpAnswerExtended, p: Profile): void {
  if (p.crawler)
    out.crawler = { name: p.crawler.name, operator: p.crawler.operator, purpose: p.crawler.purpose };
  if (p.netrep.is_proxy) out.proxy = { anonymity: proxyAnonymity(p.flags) };
}

/** The address as one number (32 or 128 bits). */
function addressValue(ip: ParsedIp): bigint {
  let value = 0n;
  for (const x of ip.bytes) value = (value << 8n) | BigInt(x);
  return value;
}

/** RFC 6811 origin validation of the answer's prefix (`a.b.c.d/n`, `x:y::/n`) and origin ASN. */
function rpkiStatusOf(s: Snapshot, ip: ParsedIp, value: bigint, prefix: string, asn: number | null) {
  const [pfxText, lenText] = prefix.split('/');
  const pfx = pfxText ?? '';
  const length = Number(lenText);
  const network =
    ip.family === 4
      ? BigInt(pfx.split('.').reduce((a, o) => a * 256 + Number(o), 0))
      : (value >> BigInt(128 - length)) << BigInt(128 - length);
  return validateOrigin(ip.family === 4 ? s.roas4 : s.roas6, ip.family, network, length, asn);
}

/** The country (and city) each source gives the record: DB-IP's city when found, WHOIS, the ASN's, a geofeed entry. */
function countryOpinions(s: Snapshot, rec: number, city: DbipCity | null): ProviderOpinion[] {
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
  return opinions;
}
