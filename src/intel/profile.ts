/**
 * Per-record classification, computed once per record and shared by every answer that hits
 * it: connection type, the netrep flags and the static part of the threat score.
 */
import { type AsnEntry, FLAG, RIRS, type Snapshot } from '../dataset/index.ts';
import { CURATED_ASNS, classifyByName } from './asn-classes.ts';
import { type Contribution, POINTS, scoreThreat } from './threat.ts';
import type { ConnectionType, NetrepFlags, Threat } from './types.ts';

export interface Profile {
  asn: number | null;
  asnName: string | null;
  country: string | null;
  rir: string | null;
  connectionType: ConnectionType;
  netrep: NetrepFlags;
  /** Static contributions (everything but blocklist listings and trap hits). */
  contributions: Contribution[];
  threat: Threat;
  flags: number;
  asnDrop: boolean;
  /** Which rule decided the classification (provenance.ts names its sources). */
  basis: ProfileBasis;
}

export interface ProfileBasis {
  /** What made the address a datacenter, null when it is not one. */
  datacenter: 'cloud' | 'list' | 'asn-list' | 'curated' | 'name' | null;
  /** The connection type came from: datacenter evidence, the curated table, name words, or the default. */
  connection: 'datacenter' | 'curated' | 'name' | 'default';
  /** cloud_provider from a published range or from the curated table. */
  provider: 'cloud' | 'curated' | null;
  vpnByAsn: boolean;
}

export function unpackCountry(c: number): string | null {
  return c ? String.fromCharCode(c >> 8, c & 255) : null;
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
  const ai = s.strings[r.ai[rec] as number] || null;
  const entry = asn ? asnInfo(asn) : undefined;
  const curated = asn ? CURATED_ASNS.get(asn) : undefined;
  const byName = asnName ? classifyByName(asnName) : null;
  // Precedence (README.md): published ranges and lists, then the curated table, then name heuristics.
  const datacenterBy: ProfileBasis['datacenter'] =
    cloud !== null
      ? 'cloud'
      : (flags & FLAG.DATACENTER_LIST) !== 0
        ? 'list'
        : entry?.datacenter === true
          ? 'asn-list'
          : curated?.kind === 'hosting'
            ? 'curated'
            : !curated && byName === 'hosting'
              ? 'name'
              : null;
  const datacenter = datacenterBy !== null;
  let connectionType: ConnectionType;
  let connectionBy: ProfileBasis['connection'];
  if (datacenter) {
    connectionType = 'datacenter';
    connectionBy = 'datacenter';
  } else if (curated && curated.kind !== 'hosting') {
    connectionType = curated.kind === 'isp' ? 'residential' : curated.kind;
    connectionBy = 'curated';
  } else if (byName === 'education' || byName === 'mobile') {
    connectionType = byName;
    connectionBy = 'name';
  } else {
    connectionType = 'residential';
    connectionBy = 'default';
  }
  const curatedProvider = datacenter ? (curated?.provider ?? null) : null;
  const provider = cloud ?? curatedProvider;
  const isVpn = (flags & FLAG.VPN) !== 0 || entry?.vpn === true;
  const isTor = (flags & FLAG.TOR_EXIT) !== 0;
  const netrep: NetrepFlags = {
    is_datacenter: datacenter,
    is_tor_exit: isTor,
    is_proxy: false,
    is_vpn: isVpn,
    is_residential: connectionType === 'residential',
    is_mobile: connectionType === 'mobile',
    is_ai_crawler: ai !== null,
  };
  if (ai) netrep.ai_company = ai;
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
  if (isVpn) c.push({ points: POINTS.vpn, reason: 'VPN network' });
  // CONTRACT §6: datacenter counts unless the address is a known company's crawler.
  if (datacenter && ai === null) c.push({ points: POINTS.datacenter, reason: 'datacenter network' });
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
    basis: {
      datacenter: datacenterBy,
      connection: connectionBy,
      provider: cloud !== null ? 'cloud' : curatedProvider !== null ? 'curated' : null,
      vpnByAsn: entry?.vpn === true,
    },
  };
}
