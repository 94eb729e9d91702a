/**
 * The service-owned blocklist (spec §2.4, §3.3, CONTRACT §4). Every change and its event are
 * written in one transaction; an expiry is recorded once, as a `delisted` event with reason
 * `expired`, by whichever caller of `expireDue` removes the row first.
 */
import type { Clock } from '../core/clock.ts';
import { createPrepared, type Store } from '../store/index.ts';
import { createListingReads } from './listing-reads.ts';
import { createListingWrites } from './listing-writes.ts';
import { createBlocklistStore } from './store.ts';
import type { BlocklistStats, Listing, ListingEvent } from './types.ts';

/** What a local change reports to listeners (the DNS index follows it). */
export type ListingListener = (ip: string, listing: Listing | null) => void;

export interface BlocklistDeps {
  /** The opened store (SQLite or PostgreSQL), migrated. */
  store: Pick<Store, 'db' | 'dialect'> & Partial<Pick<Store, 'sqlite' | 'pgPool'>>;
  clock: Clock;
}

export type Blocklist = ReturnType<typeof createBlocklist>;

export function createBlocklist(deps: BlocklistDeps) {
  const { clock } = deps;
  const store = createBlocklistStore(deps.store.db, deps.store.dialect, createPrepared(deps.store));
  const listeners = new Set<ListingListener>();
  const notify = (ip: string, listing: Listing | null) => {
    for (const fn of listeners) fn(ip, listing);
  };
  const writes = createListingWrites({ store, clock, notify });
  const { statsNow, recentNow, ...reads } = createListingReads({ store, clock });

  return {
    /** Local changes (made through this instance), after they commit. */
    subscribe(listener: ListingListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ...writes,
    ...reads,

    /** Spec §2.4 statistics; due expiries are recorded first so the counts agree with each other. */
    async stats(): Promise<BlocklistStats> {
      await writes.expireDue();
      return await statsNow();
    },

    /** Events newest first; due expiries are recorded first. */
    async recent(page: { limit: number; offset: number }): Promise<ListingEvent[]> {
      await writes.expireDue();
      return await recentNow(page);
    },
  };
}
