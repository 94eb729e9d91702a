import type { ListingType } from './types.ts';

/**
 * What reputation needs from the blocklist module. app.ts adapts the blocklist service to
 * it (listingFactsOf); a failure of any call is unavailable evidence (503), never "not listed".
 */
export interface ListingFacts {
  /** Type of the address's active listing, or null when it is not listed. */
  activeListing(ip: string): Promise<ListingType | null>;
  /** Active listings in the /24 of an IPv4 address, the address itself included. */
  activeCountInSubnet24(ip: string): Promise<number>;
  /** Times (epoch ms) of the address's `listed` events at or after `sinceMs`. */
  listedEventsSince(ip: string, sinceMs: number): Promise<number[]>;
  /**
   * The three facts for many addresses at once (one read per table). Optional: without it,
   * the single-address calls above are made for each address.
   */
  factsForMany?(ips: readonly string[], sinceMs: number): Promise<Map<string, ListingSummary>>;
}

/** The blocklist service's calls listing facts are read through (the blocklist module's own). */
export interface ListingSource {
  check(ip: string): Promise<{ type: ListingType } | null>;
  activeCountInSubnet24(ip: string): Promise<number>;
  listedEventTimes(ip: string, sinceMs: number): Promise<number[]>;
  listingFactsMany(ips: readonly string[], sinceMs: number): Promise<Map<string, ListingSummary>>;
}

/** ListingFacts over the blocklist service: how app.ts (and the tests that build reputation) wire it. */
export function listingFactsOf(blocklist: ListingSource): ListingFacts {
  return {
    activeListing: async (ip) => (await blocklist.check(ip))?.type ?? null,
    activeCountInSubnet24: (ip) => blocklist.activeCountInSubnet24(ip),
    listedEventsSince: (ip, since) => blocklist.listedEventTimes(ip, since),
    factsForMany: (ips, since) => blocklist.listingFactsMany(ips, since),
  };
}

/** The listing facts of one address. */
export interface ListingSummary {
  activeListing: ListingType | null;
  /** Times of `listed` events at or after the `sinceMs` asked for. */
  listedEvents: number[];
  /** Active listings in the /24 (the address itself included); null for IPv6. */
  subnetActiveListings: number | null;
  /**
   * The first moment these facts change by time alone (a listing of the address or of its /24
   * expires); null when none will. Absent: unknown, so the facts are not kept.
   */
  changesAt?: number | null;
}

/**
 * What reputation needs from the dataset (intel module). null means unknown, which adds
 * nothing to the score (spec §2.5: an absent datacenter classification is unknown).
 */
export interface IntelFacts {
  /** Datacenter classification of the address in the current dataset. */
  datacenter(ip: string): boolean | null;
  /** geo_stability.change_count over the last 90 days of dataset versions (CONTRACT §7). */
  geoChangeCount90d(ip: string): number | null;
}

/** The default until app.ts wires the intel module: every dataset fact is unknown. */
export const unknownIntel: IntelFacts = {
  datacenter: () => null,
  geoChangeCount90d: () => null,
};
