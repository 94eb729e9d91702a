import { type Static, Type } from '@sinclair/typebox';

/** One active listing as the DNS side sees it: the blocklist module owns the rest. */
export const DnsblListing = Type.Object({
  ip: Type.String({
    description: 'Listed address, normalized by core/ip.ts (IPv4 dotted quad or RFC 5952 IPv6).',
  }),
  returnCode: Type.String({
    description: 'DNS A answer for the listing, an address in 127.0.0.0/8 other than 127.0.0.1.',
  }),
  reason: Type.String({ description: 'Why the address is listed; served in the TXT answer.' }),
  type: Type.Optional(
    Type.String({ description: 'Listing type (spam, malware, phishing); not served in DNS.' }),
  ),
});
export type DnsblListing = Static<typeof DnsblListing>;

/** The value stored per listed address. */
export const ListingValue = Type.Object({
  returnCode: Type.String({ description: 'DNS A answer, e.g. 127.0.0.2.' }),
  reason: Type.String({ description: 'Listing reason, served in TXT.' }),
  type: Type.Optional(
    Type.String({ description: 'Listing type, for readers of the index other than DNS (threat score).' }),
  ),
});
export type ListingValue = Static<typeof ListingValue>;

/** Read side the DNS server answers from. `ip` is normalized by core/ip.ts. */
export interface ListingIndex {
  get(ip: string): ListingValue | undefined;
  readonly size: number;
}

/** The in-memory index the blocklist module keeps in sync with its store. */
export interface MutableListingIndex extends ListingIndex {
  /** Adds or replaces one listing; throws AppError INVALID_IP / INVALID_PARAMETER on bad input. */
  set(ip: string, listing: ListingValue): void;
  /** Removes a listing; returns whether it was present. */
  delete(ip: string): boolean;
  /** Swaps the whole content atomically: readers see the old set until the new one is complete. */
  replaceAll(listings: Iterable<DnsblListing>): void;
}

/** Start of authority for the zone (RFC 1035 §3.3.13). Names are absolute, without trailing dot. */
export const SoaSettings = Type.Object({
  mname: Type.String({ description: 'Primary name server.' }),
  rname: Type.String({ description: 'Responsible mailbox in DNS form (hostmaster.example.org).' }),
  serial: Type.Integer({ description: 'Zone serial number (uint32).' }),
  refresh: Type.Integer({ description: 'Secondary refresh interval, seconds.' }),
  retry: Type.Integer({ description: 'Secondary retry interval, seconds.' }),
  expire: Type.Integer({ description: 'Secondary expiry, seconds.' }),
  minimum: Type.Integer({ description: 'Negative-answer TTL (RFC 2308), seconds.' }),
});
export type SoaSettings = Static<typeof SoaSettings>;

/** pino-compatible subset. */
export interface DnsblLogger {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
