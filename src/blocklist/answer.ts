/** Domain values (epoch ms, camelCase) to the spec §2.4 answer shapes (RFC 3339, snake_case). */
import { toIso } from '../core/clock.ts';
import { testEntryListing } from './test-entries.ts';
import type {
  BlocklistStats,
  CheckAnswer,
  EventAnswer,
  Listing,
  ListingAnswer,
  ListingEvent,
  StatsAnswer,
} from './types.ts';

export function listingAnswer(listing: Listing): ListingAnswer {
  return {
    type: listing.type,
    reason: listing.reason,
    return_code: listing.returnCode,
    listed_at: toIso(listing.listedAt),
    expires_at: listing.expiresAt === null ? null : toIso(listing.expiresAt),
  };
}

/** The answer for a normalized address; the RFC 5782 test entries answer as the DNS zone does. */
export function checkAnswer(ip: string, stored: Listing | null | undefined): CheckAnswer {
  const fixed = testEntryListing(ip);
  const listing = fixed === undefined ? stored : fixed;
  return listing ? { ip, listed: true, listing: listingAnswer(listing) } : { ip, listed: false };
}

export function eventAnswer(event: ListingEvent): EventAnswer {
  const common = {
    ip: event.ip,
    action: event.action,
    type: event.type,
    reason: event.reason,
    return_code: event.returnCode,
    listed_at: toIso(event.listedAt),
  };
  return event.action === 'listed'
    ? {
        ...common,
        expires_at: event.expiresAt === null ? null : toIso(event.expiresAt),
        performed_at: toIso(event.performedAt),
      }
    : {
        ...common,
        delisted_at: toIso(event.delistedAt ?? event.performedAt),
        performed_at: toIso(event.performedAt),
      };
}

export function statsAnswer(stats: BlocklistStats): StatsAnswer {
  return {
    total_active: stats.totalActive,
    by_type: { ...stats.byType },
    new_listings_24h: stats.newListings24h,
    delistings_24h: stats.delistings24h,
  };
}
