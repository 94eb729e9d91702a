/**
 * Provenance of an extended answer: for each netrep flag and label it answers, the source
 * file(s) the merge took it from (records.prov, written at build) and the dataset version that
 * holds them. Rules that are ours, not a file's, are named as `netrep-*` pseudo-sources.
 */
import { FLAG, type Snapshot } from '../dataset/index.ts';
import { type Profile, type ProfileBasis, proxyAnonymity } from './profile.ts';
import type { Provenance } from './types.ts';

export const RULE_CURATED_ASNS = 'netrep-curated-asns';
export const RULE_ASN_NAME = 'netrep-asn-name-words';
/** Our mapping of CAIDA's AS classes to connection types (README.md), named beside the CAIDA file. */
export const RULE_AS_CLASS_MAP = 'netrep-as-class-map';
/** No rule classified the network: connection_type is null and is_residential false. */
export const RULE_UNCLASSIFIED = 'netrep-unclassified';

/** The source ids the merge stored for one record (records.prov). */
type RecordProvenance = Snapshot['provenance'][number];

type SourceIds = readonly (string | null | undefined)[];

/** Source ids by SourceKind, from the manifest (ASN-level lists apply through the ASN). */
function sourcesOfKind(s: Snapshot, kind: string): string[] {
  return s.manifest.sources.filter((x) => x.kind === kind).map((x) => x.id);
}

/** The source ids that set a flag bit on the record, [] when none did. */
function flagSources(prov: RecordProvenance, bit: number): string[] {
  return prov.flags.find(([b]) => b === bit)?.[1] ?? [];
}

/** CAIDA's AS class file(s) and our mapping of its classes. */
function asClassSources(s: Snapshot): string[] {
  return [...sourcesOfKind(s, 'as-class'), RULE_AS_CLASS_MAP];
}

/** What made the address a datacenter, by ProfileBasis.datacenter (no entry: not one). */
const DATACENTER_SOURCES: Record<string, (s: Snapshot, prov: RecordProvenance) => SourceIds> = {
  cloud: (_s, prov) => [prov.cloud],
  list: (_s, prov) => flagSources(prov, FLAG.DATACENTER_LIST),
  'asn-list': (s) => sourcesOfKind(s, 'datacenter-asns'),
  curated: () => [RULE_CURATED_ASNS],
  'as-class': asClassSources,
  name: () => [RULE_ASN_NAME],
};

/** The rule that gave the connection type, by ProfileBasis.connection (datacenter: its evidence). */
const CONNECTION_SOURCES: Record<
  ProfileBasis['connection'],
  (s: Snapshot, datacenter: SourceIds) => SourceIds
> = {
  datacenter: (_s, datacenter) => datacenter,
  curated: () => [RULE_CURATED_ASNS],
  'as-class': asClassSources,
  'as-class-name': (s) => [...asClassSources(s), RULE_ASN_NAME],
  name: () => [RULE_ASN_NAME],
  none: () => [RULE_UNCLASSIFIED],
};

/** Threat contributions from the dataset (listings and trap hits are operational data). */
const THREAT_FLAGS: [string, number][] = [
  ['threat.spamhaus_drop', FLAG.DROP],
  ['threat.spamhaus_edrop', FLAG.EDROP],
  ['threat.uceprotect_level1', FLAG.UCE1],
  ['threat.uceprotect_level2', FLAG.UCE2],
  ['threat.uceprotect_level3', FLAG.UCE3],
];

export function provenanceOf(s: Snapshot, rec: number, p: Profile): Provenance {
  const prov = s.provenance[s.records.prov[rec] as number];
  const out: Provenance = {};
  if (!prov) return out;
  putLocation(out, s, prov, p);
  const datacenter = datacenterOf(s, prov, p.basis);
  putClassification(out, s, p, datacenter);
  putFlags(out, s, prov, p);
  putThreat(out, s, prov, p);
  return out;
}

/** Sets out[field] to the distinct non-empty source ids, sorted, and their newest dataset version. */
function put(out: Provenance, s: Snapshot, field: string, ids: SourceIds): void {
  const sources = [...new Set(ids.filter((x): x is string => typeof x === 'string' && x !== ''))].sort();
  if (sources.length === 0) return;
  const versions = sources.map((id) => s.manifest.source_versions[id] ?? s.version);
  out[field] = { sources, dataset_version: Math.max(...versions) };
}

function datacenterOf(s: Snapshot, prov: RecordProvenance, b: ProfileBasis): SourceIds {
  const rule = b.datacenter === null ? undefined : DATACENTER_SOURCES[b.datacenter];
  return rule ? rule(s, prov) : [];
}

/** asn, asn_name, prefix, country and rir (dataset/merge.ts's RULE_COUNTRY_RIR when the RIR came from the country). */
function putLocation(out: Provenance, s: Snapshot, prov: RecordProvenance, p: Profile): void {
  if (p.asn !== null) {
    put(out, s, 'asn', [prov.asn]);
    put(out, s, 'asn_name', [prov.asn]);
  }
  put(out, s, 'prefix', [prov.net]);
  if (p.country) put(out, s, 'country', [prov.country]);
  if (p.rir) put(out, s, 'rir', [prov.rir]);
}

/** connection_type, netrep.is_datacenter, netrep.is_residential and netrep.is_mobile. */
function putClassification(out: Provenance, s: Snapshot, p: Profile, datacenter: SourceIds): void {
  const connection = CONNECTION_SOURCES[p.basis.connection](s, datacenter);
  put(out, s, 'connection_type', connection);
  if (p.netrep.is_datacenter) put(out, s, 'netrep.is_datacenter', datacenter);
  // Said either way: the rule that made it residential, or the one that made it something else.
  put(out, s, 'netrep.is_residential', connection);
  if (p.netrep.is_mobile) put(out, s, 'netrep.is_mobile', connection);
}

/** The netrep.* flags from lists and ranges: Tor, VPN, AI crawler, crawler, proxy, cloud provider. */
function putFlags(out: Provenance, s: Snapshot, prov: RecordProvenance, p: Profile): void {
  const n = p.netrep;
  if (n.is_tor_exit) put(out, s, 'netrep.is_tor_exit', flagSources(prov, FLAG.TOR_EXIT));
  if (n.is_vpn)
    put(out, s, 'netrep.is_vpn', [
      ...flagSources(prov, FLAG.VPN),
      ...(p.basis.vpnByAsn ? sourcesOfKind(s, 'vpn-asns') : []),
    ]);
  if (n.is_ai_crawler) {
    put(out, s, 'netrep.is_ai_crawler', [prov.ai]);
    put(out, s, 'netrep.ai_company', [prov.ai]);
  }
  if (p.crawler) put(out, s, 'crawler', [prov.ai]);
  if (n.is_proxy) put(out, s, 'netrep.is_proxy', flagSources(prov, FLAG.PROXY));
  if (n.is_proxy && proxyAnonymity(p.flags) !== null)
    put(out, s, 'proxy.anonymity', [
      ...flagSources(prov, FLAG.PROXY_TRANSPARENT),
      ...flagSources(prov, FLAG.PROXY_ANONYMOUS),
      ...flagSources(prov, FLAG.PROXY_ELITE),
    ]);
  if (n.cloud_provider)
    put(out, s, 'netrep.cloud_provider', [p.basis.provider === 'cloud' ? prov.cloud : RULE_CURATED_ASNS]);
}

/** threat.*: the dataset's DROP, EDROP and UCEPROTECT bits, the public proxy, the ASN-DROP list. */
function putThreat(out: Provenance, s: Snapshot, prov: RecordProvenance, p: Profile): void {
  for (const [field, bit] of THREAT_FLAGS)
    if ((p.flags & bit) !== 0) put(out, s, field, flagSources(prov, bit));
  if (p.netrep.is_proxy) put(out, s, 'threat.public_proxy', flagSources(prov, FLAG.PROXY));
  if (p.asnDrop) put(out, s, 'threat.spamhaus_asn_drop', sourcesOfKind(s, 'asn-drop'));
}
