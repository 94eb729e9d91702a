/** What the blocklist holds: active listings, their events, and the facts reputation reads. */
import { type Clock, DAY_MS } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { readListingFacts } from './listing-facts.ts';
import { isListingType, requireIp } from './listing-input.ts';
import { toEvent, toListing } from './listing-rows.ts';
import type { BlocklistStore, ListingRow } from './store.ts';
import type { BlocklistStats, Listing, ListingChange, ListingEvent, ListingType } from './types.ts';

const PAGE = 1000;
const MAX_CHECK_MANY = 1000;

export function createListingReads(deps: { store: BlocklistStore; clock: Clock }) {
  const { store, clock } = deps;
  return {
    /** The active listing of an address, or null (also for an expired one). */
    async check(ipInput: string): Promise<Listing | null> {
      const ip = requireIp(ipInput);
      const row = await store.activeListing(ip.address, clock());
      return row ? toListing(row) : null;
    },

    /** Active listings of several addresses, keyed by normalized address (absent: not listed). */
    async checkMany(ips: readonly string[]): Promise<Map<string, Listing>> {
      if (ips.length > MAX_CHECK_MANY)
        throw new AppError('TOO_MANY_IPS', `at most ${MAX_CHECK_MANY} addresses`);
      const normalized = [...new Set(ips.map((ip) => requireIp(ip).address))];
      const rows = await store.activeListings(normalized, clock());
      return new Map(rows.map((r) => [r.ip, toListing(r)]));
    },

    /** Spec §2.4 statistics, without recording due expiries first. */
    async statsNow(): Promise<BlocklistStats> {
      const now = clock();
      const byType: Record<ListingType, number> = { spam: 0, malware: 0, phishing: 0 };
      let totalActive = 0;
      for (const { type, n } of await store.countActiveByType(now)) {
        if (isListingType(type)) byType[type] = n;
        totalActive += n;
      }
      const since = now - DAY_MS;
      const [newListings24h, delistings24h] = await Promise.all([
        store.countEventsSince('listed', since),
        store.countEventsSince('delisted', since),
      ]);
      return { totalActive, byType, newListings24h, delistings24h };
    },

    /** Events newest first, without recording due expiries first. */
    async recentNow({ limit, offset }: { limit: number; offset: number }): Promise<ListingEvent[]> {
      return (await store.recentEvents(limit, offset)).map(toEvent);
    },

    /** Every active listing, in pages (for the DNS index and the zone export). */
    async *activeListings(): AsyncGenerator<Listing> {
      let after: string | null = null;
      for (;;) {
        const rows = await store.activePage(after, clock(), PAGE);
        for (const row of rows) yield toListing(row);
        if (rows.length < PAGE) return;
        after = (rows[rows.length - 1] as ListingRow).ip;
      }
    },

    /** Active listings in the address's IPv4 /24 (0 for IPv6). */
    async activeCountInSubnet24(ipInput: string): Promise<number> {
      const ip = requireIp(ipInput);
      if (ip.subnet24 === null) return 0;
      return await store.countActiveInSubnet24(ip.subnet24, clock());
    },

    /** Number of `listed` events of the address at or after `sinceMs`. */
    async listedEventsSince(ipInput: string, sinceMs: number): Promise<number> {
      return (await store.listedEventTimes(requireIp(ipInput).address, sinceMs)).length;
    },

    /** Times (epoch ms) of the address's `listed` events at or after `sinceMs`, oldest first. */
    async listedEventTimes(ipInput: string, sinceMs: number): Promise<number[]> {
      return await store.listedEventTimes(requireIp(ipInput).address, sinceMs);
    },

    /** For reputation (spec §2.5 listing signals): listing-facts.ts. */
    listingFactsMany: (ipInputs: readonly string[], sinceMs: number) =>
      readListingFacts(store, clock(), ipInputs, sinceMs),

    /** Id of the newest event (0 when none): the starting cursor for `changesSince`. */
    async lastEventId(): Promise<number> {
      return await store.lastEventId();
    },

    /**
     * Changes recorded after event `cursor` (at most `limit`), each with the address's listing
     * as it is now. `eventIds` re-reads specific events (gaps a poller is still waiting for).
     */
    async changesSince(cursor: number, options: { limit?: number; eventIds?: readonly number[] } = {}) {
      const events = [
        ...(await store.eventsAfter(cursor, options.limit ?? PAGE)),
        ...(options.eventIds?.length ? await store.eventsByIds(options.eventIds) : []),
      ];
      const ips = [...new Set(events.map((e) => e.ip))];
      const rows = new Map((await store.activeListings(ips, clock())).map((r) => [r.ip, r]));
      const changes: ListingChange[] = events.map((e) => {
        const row = rows.get(e.ip);
        return { eventId: e.id, ip: e.ip, listing: row ? toListing(row) : null };
      });
      return changes;
    },
  };
}
