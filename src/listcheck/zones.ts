/**
 * The public lists the check asks (NETREP_DNSBL_CHECK_ZONES): each entry is a zone, or
 * `zone=https://delisting-page`. Zones this file knows get their name, delisting page and the
 * address families they cover from `KNOWN_ZONES`; any other zone is named after itself, is asked
 * for both families and has no delisting page unless the entry gives one.
 */
import { normalizeQueryName } from '../core/dns/client.ts';

export interface CheckZone {
  zone: string;
  name: string;
  delistUrl: string | null;
  /** Address families the list publishes (an IPv4-only list is not asked about IPv6). */
  families: readonly (4 | 6)[];
}

const V4: readonly (4 | 6)[] = [4];
const BOTH: readonly (4 | 6)[] = [4, 6];

/** Lists with a published lookup and removal page (the defaults, and a few more). */
export const KNOWN_ZONES: readonly CheckZone[] = [
  {
    zone: 'zen.spamhaus.org',
    name: 'Spamhaus ZEN',
    delistUrl: 'https://check.spamhaus.org/',
    families: BOTH,
  },
  { zone: 'bl.spamcop.net', name: 'SpamCop', delistUrl: 'https://www.spamcop.net/bl.shtml', families: V4 },
  {
    zone: 'b.barracudacentral.org',
    name: 'Barracuda Reputation Block List',
    delistUrl: 'https://www.barracudacentral.org/rbl/removal-request',
    families: V4,
  },
  {
    zone: 'psbl.surriel.com',
    name: 'PSBL (Passive Spam Block List)',
    delistUrl: 'https://psbl.org/',
    families: V4,
  },
  {
    zone: 'dnsbl-1.uceprotect.net',
    name: 'UCEPROTECT Level 1',
    delistUrl: 'https://www.uceprotect.net/en/rblcheck.php',
    families: V4,
  },
  {
    zone: 'ips.backscatterer.org',
    name: 'Backscatterer',
    delistUrl: 'https://www.backscatterer.org/?target=test',
    families: V4,
  },
  { zone: 'bl.mailspike.net', name: 'Mailspike', delistUrl: 'https://mailspike.io/ip_verify', families: V4 },
  { zone: 'dnsbl.dronebl.org', name: 'DroneBL', delistUrl: 'https://dronebl.org/lookup', families: BOTH },
];

/** One entry (`zone` or `zone=https://…`) as a zone; throws on what is neither. */
function parseEntry(entry: string): CheckZone {
  const eq = entry.indexOf('=');
  const zone = normalizeQueryName(eq < 0 ? entry : entry.slice(0, eq));
  const url = eq < 0 ? null : entry.slice(eq + 1).trim();
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/.test(zone) || zone.length > 200) {
    throw new Error(`NETREP_DNSBL_CHECK_ZONES: ${JSON.stringify(entry)} is not a DNS zone name`);
  }
  if (url !== null && !/^https?:\/\/\S+$/.test(url)) {
    throw new Error(`NETREP_DNSBL_CHECK_ZONES: the delisting page of ${zone} must be an http(s) URL`);
  }
  const base = KNOWN_ZONES.find((k) => k.zone === zone) ?? {
    zone,
    name: zone,
    delistUrl: null,
    families: BOTH,
  };
  return url === null ? base : { ...base, delistUrl: url };
}

/**
 * The configured entries as zones, in order, each once (the first entry of a zone wins). Throws
 * on an entry that is not a zone name or whose delisting page is not an http(s) URL.
 */
export function parseCheckZones(entries: readonly string[]): CheckZone[] {
  const out = new Map<string, CheckZone>();
  for (const entry of entries) {
    const zone = parseEntry(entry);
    if (!out.has(zone.zone)) out.set(zone.zone, zone);
  }
  return [...out.values()];
}
