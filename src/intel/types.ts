/** Answer shapes of the intel module (spec §2.2, §2.3; CONTRACT §0 names the flags object `netrep`). */
import { type Static, Type } from '@sinclair/typebox';

export const NetrepFlags = Type.Object(
  {
    is_datacenter: Type.Boolean({ description: 'Hosting, cloud or datacenter network' }),
    is_tor_exit: Type.Boolean({ description: 'Listed as a Tor exit relay address' }),
    is_proxy: Type.Boolean({ description: 'Listed on a public open-proxy list' }),
    is_vpn: Type.Boolean({ description: 'Known VPN exit or VPN provider network' }),
    is_residential: Type.Boolean({
      description: 'Consumer access network, on evidence only (never because nothing else matched)',
    }),
    is_mobile: Type.Boolean({ description: 'Mobile carrier network' }),
    is_ai_crawler: Type.Boolean({
      description: 'Published range of an AI crawler, assistant or agent (not search engine crawlers)',
    }),
    ai_company: Type.Optional(
      Type.String({ description: 'Company operating the crawler, when is_ai_crawler' }),
    ),
    cloud_provider: Type.Optional(Type.String({ description: 'Cloud or CDN provider, when detected' })),
  },
  { description: 'The netrep flags object' },
);
export type NetrepFlags = Static<typeof NetrepFlags>;

export const ThreatLevel = Type.Union([
  Type.Literal('low'),
  Type.Literal('medium'),
  Type.Literal('high'),
  Type.Literal('critical'),
]);

export const Threat = Type.Object({
  score: Type.Integer({ minimum: 0, maximum: 100, description: '0 safe to 100 high risk' }),
  level: ThreatLevel,
  explanation: Type.Array(Type.String(), { description: 'One line per contribution' }),
});
export type Threat = Static<typeof Threat>;

export const ConnectionType = Type.Union(
  [
    Type.Literal('residential'),
    Type.Literal('datacenter'),
    Type.Literal('mobile'),
    Type.Literal('business'),
    Type.Literal('education'),
  ],
  { description: 'Kind of network' },
);
export type ConnectionType = Static<typeof ConnectionType>;

export const IpAnswer = Type.Object({
  ip: Type.String({ description: 'Normalized queried address' }),
  prefix: Type.String({ description: 'CIDR containing the IP (the longest matching network)' }),
  asn: Type.Union([Type.Integer(), Type.Null()], { description: 'Origin ASN; null when unrouted' }),
  asn_name: Type.Union([Type.String(), Type.Null()], { description: 'Organization of the ASN' }),
  country: Type.Union([Type.String(), Type.Null()], { description: 'ISO 3166-1 alpha-2' }),
  rir: Type.Union([Type.String(), Type.Null()], { description: 'ARIN, RIPE, APNIC, LACNIC or AFRINIC' }),
  connection_type: Type.Union([ConnectionType, Type.Null()], {
    description:
      'From evidence only (published ranges and lists, the curated ASN table, CAIDA AS classification, ASN name words); null when nothing classifies the network, and for bogons',
  }),
  bogon: Type.Boolean({ description: 'Private, loopback, reserved or otherwise non-public address' }),
  netrep: NetrepFlags,
  threat: Threat,
});
export type IpAnswer = Static<typeof IpAnswer>;

export const Geolocation = Type.Object({
  country_code: Type.Union([Type.String(), Type.Null()]),
  country_name: Type.Union([Type.String(), Type.Null()]),
  region: Type.Union([Type.String(), Type.Null()]),
  region_code: Type.Union([Type.String(), Type.Null()]),
  city: Type.Union([Type.String(), Type.Null()]),
  postal_code: Type.Union([Type.String(), Type.Null()]),
  latitude: Type.Union([Type.Number(), Type.Null()]),
  longitude: Type.Union([Type.Number(), Type.Null()]),
  accuracy_radius: Type.Union([Type.Integer(), Type.Null()], {
    description: 'km; null when the source gives none',
  }),
  timezone: Type.Union([Type.String(), Type.Null()]),
  continent_code: Type.Union([Type.String(), Type.Null()]),
  continent_name: Type.Union([Type.String(), Type.Null()]),
});
export type Geolocation = Static<typeof Geolocation>;

export const GeoConsensus = Type.Object({
  agreement: Type.Number({ description: 'Share of providers naming primary_country (0-1)' }),
  primary_country: Type.Union([Type.String(), Type.Null()]),
  providers: Type.Array(
    Type.Object({
      provider: Type.String(),
      country: Type.Union([Type.String(), Type.Null()]),
      city: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

export const GeoStability = Type.Object({
  change_count: Type.Integer({ description: 'Country changes over the last 90 days of dataset versions' }),
  level: Type.Union([Type.Literal('stable'), Type.Literal('moderate'), Type.Literal('unstable')]),
  last_change: Type.Union([Type.String(), Type.Null()], {
    description: 'RFC 3339 time of the latest country change',
  }),
});
export type GeoStability = Static<typeof GeoStability>;

export const OwnershipChange = Type.Object({
  change_kind: Type.Union([Type.Literal('asn'), Type.Literal('organization'), Type.Literal('country')], {
    description: 'The most significant field that changed (asn > organization > country)',
  }),
  previous_country: Type.Union([Type.String(), Type.Null()]),
  current_country: Type.Union([Type.String(), Type.Null()]),
  previous_asn: Type.Union([Type.Integer(), Type.Null()]),
  current_asn: Type.Union([Type.Integer(), Type.Null()]),
  previous_org: Type.Union([Type.String(), Type.Null()]),
  current_org: Type.Union([Type.String(), Type.Null()]),
  changed_at: Type.String({ description: 'Build time of the dataset version that saw the change' }),
});
export type OwnershipChange = Static<typeof OwnershipChange>;

export const AsnReputation = Type.Object({
  uce_level1: Type.Boolean({ description: 'The IP is on UCEPROTECT level 1' }),
  uce_level2: Type.Boolean({ description: 'The prefix is on UCEPROTECT level 2' }),
  uce_level3: Type.Boolean({ description: 'The ASN is on UCEPROTECT level 3' }),
  provider_drop: Type.Boolean({ description: 'Spamhaus DROP (prefix) or ASN-DROP (ASN)' }),
  provider_edrop: Type.Boolean({ description: 'Spamhaus EDROP' }),
  sources: Type.Array(Type.String(), { description: 'Reputation sources present in the dataset' }),
  dataset_versions: Type.Record(Type.String(), Type.Integer(), {
    description: 'Source → dataset version holding its data',
  }),
  last_checked: Type.String({ description: 'Build time of the serving dataset version' }),
});
export type AsnReputation = Static<typeof AsnReputation>;

export const ProvenanceEntry = Type.Object({
  sources: Type.Array(Type.String(), {
    description:
      'Source ids (dataset manifest, `netrep dataset list`), or netrep-* for a documented rule of ours',
  }),
  dataset_version: Type.Integer({ description: 'The dataset version that holds these sources' }),
});

export const Provenance = Type.Record(Type.String(), ProvenanceEntry, {
  description:
    'For each netrep flag and label answered (keys are field paths such as `netrep.cloud_provider`, `country`, `prefix`, `threat.spamhaus_drop`): where it came from',
});
export type Provenance = Static<typeof Provenance>;

export const CrawlerPurpose = Type.Union(
  [Type.Literal('ai_training'), Type.Literal('ai_assistant'), Type.Literal('search')],
  {
    description:
      'ai_training: gathers model training data; ai_assistant: fetches for an AI assistant, agent or AI answer engine; search: a search engine crawler or fetcher. Only the first two set is_ai_crawler.',
  },
);

export const Crawler = Type.Object(
  {
    name: Type.String({ description: 'The crawler, as its operator names it (e.g. GPTBot, Googlebot)' }),
    operator: Type.String({ description: 'The company that publishes the range' }),
    purpose: CrawlerPurpose,
  },
  { description: 'The published crawler range holding the address (any purpose)' },
);
export type Crawler = Static<typeof Crawler>;

export const ProxyInfo = Type.Object(
  {
    anonymity: Type.Union(
      [Type.Literal('transparent'), Type.Literal('anonymous'), Type.Literal('elite'), Type.Null()],
      {
        description:
          "As the proxy list states it (spys.me's N/A/H): transparent passes the client address on; null when no list says",
      },
    ),
  },
  { description: 'Present when is_proxy: what the open-proxy lists say about the proxy' },
);

export const IpAnswerExtended = Type.Composite([
  IpAnswer,
  Type.Object({
    organization: Type.Optional(Type.String()),
    provider: Type.Optional(Type.String()),
    hostname: Type.Optional(Type.String({ description: 'PTR name' })),
    rpki_status: Type.Optional(
      Type.Union([Type.Literal('valid'), Type.Literal('invalid'), Type.Literal('not-found')]),
    ),
    geolocation: Type.Optional(Geolocation),
    geo_consensus: Type.Optional(GeoConsensus),
    geo_stability: Type.Optional(GeoStability),
    ownership_timeline: Type.Optional(Type.Array(OwnershipChange)),
    asn_reputation: Type.Optional(AsnReputation),
    crawler: Type.Optional(Crawler),
    proxy: Type.Optional(ProxyInfo),
    provenance: Type.Optional(Provenance),
  }),
]);
export type IpAnswerExtended = Static<typeof IpAnswerExtended>;

export const AsnPrefix = Type.Object({
  prefix: Type.String(),
  country: Type.Union([Type.String(), Type.Null()]),
  is_datacenter: Type.Boolean(),
  threat_score: Type.Integer({ minimum: 0, maximum: 100 }),
});
export type AsnPrefix = Static<typeof AsnPrefix>;

export const AsnInfo = Type.Object({
  asn: Type.Integer({ minimum: 1, maximum: 4294967295 }),
  name: Type.String(),
  country: Type.Union([Type.String(), Type.Null()]),
  rir: Type.Union([Type.String(), Type.Null()]),
  allocation_date: Type.Union([Type.String(), Type.Null()], {
    description: 'YYYY-MM-DD from RIR statistics',
  }),
  prefixes: Type.Optional(Type.Array(AsnPrefix)),
  total_prefixes: Type.Optional(Type.Integer()),
});
export type AsnInfo = Static<typeof AsnInfo>;

export const AsnSearchResult = Type.Object({
  results: Type.Array(
    Type.Object({
      asn: Type.Integer(),
      name: Type.String(),
      country: Type.Union([Type.String(), Type.Null()]),
      rir: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  count: Type.Integer(),
});
export type AsnSearchResult = Static<typeof AsnSearchResult>;

export const AsnStats = Type.Object({
  total_asns: Type.Integer(),
  by_rir: Type.Record(Type.String(), Type.Integer()),
});
export type AsnStats = Static<typeof AsnStats>;

/**
 * The seam through which blocklist and trap modules feed the threat score. Synchronous: owners
 * keep in-memory indexes. Default: no signals.
 */
export interface ThreatSignalSource {
  listingFor(ip: string): { type: 'spam' | 'malware' | 'phishing' } | null;
  pristineTrapHitRecent(ip: string): boolean;
}
