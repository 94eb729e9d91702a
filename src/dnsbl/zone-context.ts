import { intToIpv4 } from '../core/ip.ts';
import { type FastListingIndex, ipv4TextToInt, type StoredListing } from './listing-index.ts';
import { canonicalZone, targetIp } from './query-name.ts';
import type { ListingIndex, SoaSettings } from './types.ts';
import {
  encodeName,
  encodeSoaRdata,
  TEST_ENTRY_REASON,
  TEST_LISTED_IPV4,
  TEST_UNLISTED_IPV4,
} from './wire.ts';

/** Everything both answer paths need, computed once per server. */
export interface ZoneContext {
  /** Canonical zone: lower case, no trailing dot. */
  zone: string;
  /** Lower-case wire form of the zone, with the terminating root label. */
  zoneWire: Buffer;
  zoneLabelCount: number;
  index: ListingIndex;
  /** Set when the index offers integer and hex lookups (createListingIndex does). */
  fast: FastListingIndex | null;
  lookupUrl: (ip: string) => string;
  /** TTL of positive answers and of the apex records, seconds. */
  ttl: number;
  soa: SoaSettings;
  soaRdata: Buffer;
  ns: string[];
}

export interface ZoneContextOptions {
  zone: string;
  index: ListingIndex;
  lookupUrl: (ip: string) => string;
  ttl?: number;
  soa?: Partial<SoaSettings>;
  ns?: string[];
  /** Epoch ms used for the default SOA serial. */
  now: number;
}

export const DEFAULT_TTL = 60;

export function createZoneContext(o: ZoneContextOptions): ZoneContext {
  const zone = canonicalZone(o.zone);
  const ns = (o.ns && o.ns.length > 0 ? o.ns : ['localhost']).map((n) => n.toLowerCase().replace(/\.$/, ''));
  const ttl = o.ttl ?? DEFAULT_TTL;
  const soa: SoaSettings = {
    mname: ns[0] as string,
    rname: `hostmaster.${zone}`,
    serial: Math.floor(o.now / 1000) >>> 0,
    refresh: 3600,
    retry: 600,
    expire: 604800,
    minimum: ttl,
    ...o.soa,
  };
  const isFast = 'getIpv4' in o.index && 'getIpv6' in o.index;
  return {
    zone,
    zoneWire: encodeName(zone),
    zoneLabelCount: zone.split('.').length,
    index: o.index,
    fast: isFast ? (o.index as FastListingIndex) : null,
    lookupUrl: o.lookupUrl,
    ttl,
    soa,
    soaRdata: encodeSoaRdata(soa),
    ns,
  };
}

const TEST_LISTING: StoredListing = Object.freeze({
  returnCode: '127.0.0.2',
  reason: TEST_ENTRY_REASON,
  returnCodeInt: TEST_LISTED_IPV4,
});

function stored(v: { returnCode: string; reason: string } | undefined): StoredListing | undefined {
  if (!v) return undefined;
  if ('returnCodeInt' in v) return v as StoredListing;
  // A foreign index may hold an unchecked code; answer the CONTRACT §4 spam default rather than fail.
  const int = ipv4TextToInt(v.returnCode);
  return { returnCode: v.returnCode, reason: v.reason, returnCodeInt: int < 0 ? TEST_LISTED_IPV4 : int };
}

/** The listing for an IPv4 address, honouring the RFC 5782 §5 test entries. */
export function findIpv4(ctx: ZoneContext, int: number): StoredListing | undefined {
  if (int === TEST_LISTED_IPV4) return TEST_LISTING;
  if (int === TEST_UNLISTED_IPV4) return undefined;
  return ctx.fast ? ctx.fast.getIpv4(int) : stored(ctx.index.get(intToIpv4(int)));
}

export function findIpv6(ctx: ZoneContext, hex: string): StoredListing | undefined {
  return ctx.fast ? ctx.fast.getIpv6(hex) : stored(ctx.index.get(targetIp({ kind: 'ipv6', hex })));
}
