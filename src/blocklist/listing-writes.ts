/**
 * Changes to the blocklist: list, delist and the recording of due expiries. Every change and its
 * event are written in one transaction, and listeners hear of it after it commits.
 */
import type { Clock } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { requireIp, validListInput, validReason } from './listing-input.ts';
import { recordExpiry, toListing } from './listing-rows.ts';
import type { BlocklistStore, ListingRow } from './store.ts';
import type { DelistOptions, ListInput, Listing } from './types.ts';

const DEFAULT_DELIST_REASON = 'delisted';
const EXPIRE_BATCH = 500;

export interface ListingWrites {
  /**
   * Lists an address, or re-lists it (updating type, reason, code and expiry; a still-active
   * listing keeps its listed_at). Each call records one `listed` event.
   */
  list(input: ListInput): Promise<Listing>;
  /** Ends an active listing; null when the address was not listed (nothing recorded). */
  delist(ipInput: string, options?: DelistOptions): Promise<Listing | null>;
  /** Records every due expiry (in batches); returns how many listings ended. */
  expireDue(): Promise<number>;
}

export function createListingWrites(deps: {
  store: BlocklistStore;
  clock: Clock;
  notify: (ip: string, listing: Listing | null) => void;
}): ListingWrites {
  const { store, clock, notify } = deps;

  async function expireDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const now = clock();
      const removed = await store.transaction(async (w) => {
        const rows = await w.deleteDue(now, EXPIRE_BATCH);
        for (const row of rows) await recordExpiry(w, row);
        return rows;
      });
      for (const row of removed) notify(row.ip, null);
      total += removed.length;
      if (removed.length < EXPIRE_BATCH) return total;
    }
  }

  return {
    /**
     * Lists an address, or re-lists it (updating type, reason, code and expiry; a still-active
     * listing keeps its listed_at). Each call records one `listed` event.
     */
    async list(input) {
      const { ip, reason, returnCode } = validListInput(input);
      const now = clock();
      const expiresAt = input.expiresAt ?? null;
      if (expiresAt !== null && (!Number.isSafeInteger(expiresAt) || expiresAt <= now))
        throw new AppError('INVALID_BODY', 'expires_at must be a time in the future');
      const actor = input.actor ?? 'system';
      const row = await store.transaction(async (w) => {
        const previous = await w.lockListing(ip.address);
        let listedAt = now;
        if (previous) {
          if (previous.expires_at !== null && Number(previous.expires_at) <= now)
            await recordExpiry(w, previous);
          else listedAt = Number(previous.listed_at);
        }
        const next: ListingRow = {
          ip: ip.address,
          family: ip.family,
          subnet24: ip.subnet24,
          type: input.type,
          reason,
          return_code: returnCode,
          listed_at: listedAt,
          expires_at: expiresAt,
          updated_at: now,
        };
        await w.putListing(next);
        await w.addEvent({
          ip: ip.address,
          subnet24: ip.subnet24,
          action: 'listed',
          type: next.type,
          reason,
          return_code: returnCode,
          listed_at: listedAt,
          expires_at: expiresAt,
          delisted_at: null,
          performed_at: now,
          actor,
        });
        return next;
      });
      const listing = toListing(row);
      notify(listing.ip, listing);
      return listing;
    },

    /** Ends an active listing; null when the address was not listed (nothing recorded). */
    async delist(ipInput, options = {}) {
      const ip = requireIp(ipInput);
      const reason = options.reason === undefined ? DEFAULT_DELIST_REASON : validReason(options.reason);
      const now = clock();
      const removed = await store.transaction(async (w) => {
        const previous = await w.lockListing(ip.address);
        if (!previous) return null;
        await w.deleteListing(ip.address);
        if (previous.expires_at !== null && Number(previous.expires_at) <= now) {
          // Already over: the expiry is the delisting that happened.
          await recordExpiry(w, previous);
          return null;
        }
        await w.addEvent({
          ip: previous.ip,
          subnet24: previous.subnet24,
          action: 'delisted',
          type: previous.type,
          reason,
          return_code: previous.return_code,
          listed_at: previous.listed_at,
          expires_at: previous.expires_at,
          delisted_at: now,
          performed_at: now,
          actor: options.actor ?? 'system',
        });
        return previous;
      });
      notify(ip.address, null);
      return removed ? toListing(removed) : null;
    },

    expireDue,
  };
}
