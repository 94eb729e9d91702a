/**
 * Provenance of an extended answer: for each netrep flag and label it answers, the source
 * file(s) the merge took it from (records.prov, written at build) and the dataset version that
 * holds them. Rules that are ours, not a file's, are named as `netrep-*` pseudo-sources.
 */
import { FLAG, RULE_COUNTRY_RIR, type Snapshot } from '../dataset/index.ts';
import { type Profile, proxyAnonymity } from './profile.ts';
import type { Provenance } from './types.ts';

export const RULE_CURATED_ASNS = 'netrep-curated-asns';
export const RULE_ASN_NAME = 'netrep-asn-name-words';
/** Our mapping of CAIDA's AS classes to connection types (README.md), named beside the CAIDA file. */
export const RULE_AS_CLASS_MAP = 'netrep-as-class-map';
/** No rule classified the network: connection_type is null and is_residential false. */
export const RULE_UNCLASSIFIED = 'netrep-unclassified';

/** Source ids by SourceKind, from the manifest (ASN-level lists apply through the ASN). */
function sourcesOfKind(s: Snapshot, kind: string): string[] {
  return s.manifest.sources.filter((x) => x.kind === kind).map((x) => x.id);
}

export function provenanceOf(s: Snapshot, rec: number, p: Profile): Provenance {
  const prov = s.provenance[s.records.prov[rec] as number];
  const out: Provenance = {};
  const put = (field: string, ids: readonly (string | null | undefined)[]) => {
    const sources = [...new Set(ids.filter((x): x is string => typeof x === 'string' && x !== ''))].sort();
    if (sources.length === 0) return;
    const versions = sources.map((id) => s.manifest.source_versions[id] ?? s.version);
    out[field] = { sources, dataset_version: Math.max(...versions) };
  };
  if (!prov) return out;
  const flagSources = (bit: number) => prov.flags.find(([b]) => b === bit)?.[1] ?? [];
  if (p.asn !== null) {
    put('asn', [prov.asn]);
    put('asn_name', [prov.asn]);
  }
  put('prefix', [prov.net]);
  if (p.country) put('country', [prov.country]);
  if (p.rir) put('rir', [prov.rir]);
  const b = p.basis;
  const datacenter =
    b.datacenter === 'cloud'
      ? [prov.cloud]
      : b.datacenter === 'list'
        ? flagSources(FLAG.DATACENTER_LIST)
        : b.datacenter === 'asn-list'
          ? sourcesOfKind(s, 'datacenter-asns')
          : b.datacenter === 'curated'
            ? [RULE_CURATED_ASNS]
            : b.datacenter === 'as-class'
              ? [...sourcesOfKind(s, 'as-class'), RULE_AS_CLASS_MAP]
              : b.datacenter === 'name'
                ? [RULE_ASN_NAME]
                : [];
  const asClass = [...sourcesOfKind(s, 'as-class'), RULE_AS_CLASS_MAP];
  const connection =
    b.connection === 'datacenter'
      ? datacenter
      : b.connection === 'curated'
        ? [RULE_CURATED_ASNS]
        : b.connection === 'as-class'
          ? asClass
          : b.connection === 'as-class-name'
            ? [...asClass, RULE_ASN_NAME]
            : b.connection === 'name'
              ? [RULE_ASN_NAME]
              : [RULE_UNCLASSIFIED];
  put('connection_type', connection);
  const n = p.netrep;
  if (n.is_datacenter) put('netrep.is_datacenter', datacenter);
  // Said either way: the rule that made it residential, or the one that made it something else.
  put('netrep.is_residential', connection);
  if (n.is_mobile) put('netrep.is_mobile', connection);
  if (n.is_tor_exit) put('netrep.is_tor_exit', flagSources(FLAG.TOR_EXIT));
  if (n.is_vpn)
    put('netrep.is_vpn', [...flagSources(FLAG.VPN), ...(b.vpnByAsn ? sourcesOfKind(s, 'vpn-asns') : [])]);
  if (n.is_ai_crawler) {
    put('netrep.is_ai_crawler', [prov.ai]);
    put('netrep.ai_company', [prov.ai]);
  }
  if (p.crawler) put('crawler', [prov.ai]);
  if (n.is_proxy) put('netrep.is_proxy', flagSources(FLAG.PROXY));
  if (n.is_proxy && proxyAnonymity(p.flags) !== null)
    put('proxy.anonymity', [
      ...flagSources(FLAG.PROXY_TRANSPARENT),
      ...flagSources(FLAG.PROXY_ANONYMOUS),
      ...flagSources(FLAG.PROXY_ELITE),
    ]);
  if (n.cloud_provider)
    put('netrep.cloud_provider', [b.provider === 'cloud' ? prov.cloud : RULE_CURATED_ASNS]);
  // Threat contributions from the dataset (listings and trap hits are operational data).
  const threat: [string, number][] = [
    ['threat.spamhaus_drop', FLAG.DROP],
    ['threat.spamhaus_edrop', FLAG.EDROP],
    ['threat.uceprotect_level1', FLAG.UCE1],
    ['threat.uceprotect_level2', FLAG.UCE2],
    ['threat.uceprotect_level3', FLAG.UCE3],
  ];
  for (const [field, bit] of threat) if ((p.flags & bit) !== 0) put(field, flagSources(bit));
  if (n.is_proxy) put('threat.public_proxy', flagSources(FLAG.PROXY));
  if (p.asnDrop) put('threat.spamhaus_asn_drop', sourcesOfKind(s, 'asn-drop'));
  return out;
}
