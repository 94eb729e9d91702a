/** The listing facts reputation reads for several addresses at once. */
import { requireIp } from './listing-input.ts';
import type { BlocklistStore } from './store.ts';
import type { ListingType } from './types.ts';

export interface ListingFacts {
  activeListing: ListingType | null;
  listedEvents: number[];
  subnetActiveListings: number | null;
  changesAt: number | null;
}

/**
 * For reputation (spec §2.5 listing signals), several addresses with one read per table:
 * each address's active listing type, its `listed` event times at or after `sinceMs`, and
 * the active listings of its /24 (itself included; null for IPv6), and `changesAt`: the
 * first moment these facts change by time alone (a listing of the address or its /24
 * expires; null: none does). Other changes are events, which raise the change stamps.
 */
export async function readListingFacts(
  store: BlocklistStore,
  now: number,
  ipInputs: readonly string[],
  sinceMs: number,
): Promise<Map<string, ListingFacts>> {
  const ips = ipInputs.map(requireIp);
  const addresses = [...new Set(ips.map((ip) => ip.address))];
  const subnets = [...new Set(ips.flatMap((ip) => (ip.subnet24 === null ? [] : [ip.subnet24])))];
  const [active, events, counts] = await Promise.all([
    store.activeTypes(addresses, now),
    store.listedEventTimesMany(addresses, sinceMs),
    store.countActiveInSubnets(subnets, now),
  ]);
  const earliest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
  return new Map(
    ips.map((ip) => {
      const own = active.get(ip.address);
      const subnet = ip.subnet24 === null ? undefined : counts.get(ip.subnet24);
      return [
        ip.address,
        {
          activeListing: (own?.type as ListingType | undefined) ?? null,
          listedEvents: events.get(ip.address) ?? [],
          subnetActiveListings: ip.subnet24 === null ? null : (subnet?.count ?? 0),
          changesAt: earliest(own?.expiresAt ?? null, subnet?.firstExpiry ?? null),
        },
      ];
    }),
  );
}
