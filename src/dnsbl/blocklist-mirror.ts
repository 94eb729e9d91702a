/**
 * Keeps the in-memory listing index equal to the blocklist's active listings: loaded once at
 * start, updated at once by changes made through this instance, and by polling the event log
 * (`changesSince`) for changes other instances made through a shared PostgreSQL. Expiries are
 * applied from a timer heap, so an expired listing leaves DNS without waiting for the worker.
 */
import type { Blocklist, Listing, ListingType } from '../blocklist/index.ts';
import type { Clock } from '../core/clock.ts';
import { normalizeIp } from '../core/ip.ts';
import { createExpiryHeap } from './expiry-heap.ts';
import { createListingIndex, type FastListingIndex, type ListingIndexSnapshot } from './listing-index.ts';
import type { DnsblLogger, ListingValue } from './types.ts';

/** PostgreSQL hands out event ids before commit, so a smaller id can appear later: wait this long. */
const GAP_WAIT_MS = 10_000;
const MAX_PENDING_GAPS = 10_000;
const POLL_BATCH = 2000;

export interface BlocklistMirrorOptions {
  blocklist: Blocklist;
  clock: Clock;
  /** How often to read other instances' changes (default 250 ms). */
  pollMs?: number;
  logger?: DnsblLogger;
}

/** Each change of the index after start: a listing set (its value) or removed (null). */
export type ListingChangeListener = (ip: string, value: ListingValue | null) => void;

export interface BlocklistMirror {
  index: FastListingIndex & { snapshot(): ListingIndexSnapshot };
  /** Hears every later change of `index` (own, other instances', expiries); returns the unsubscribe. */
  onChange(listener: ListingChangeListener): () => void;
  /** The active listing's type, or null; synchronous, from memory (threat score, reputation). */
  listingFor(ip: string): { type: ListingType } | null;
  /** Reads other instances' changes and applies due expiries now (the timer does this too). */
  poll(): Promise<void>;
  close(): void;
}

/**
 * Event ids between the cursor and the newest seen that did not arrive yet join `pending` (id →
 * when the wait began); ids waited for longer than GAP_WAIT_MS are given up.
 */
function trackGaps(
  pending: Map<number, number>,
  range: { after: number; before: number; seen: Set<number> },
  now: number,
): void {
  for (let id = range.after + 1; id < range.before && pending.size < MAX_PENDING_GAPS; id++) {
    if (!range.seen.has(id)) pending.set(id, now);
  }
  for (const [id, since] of pending) if (now - since > GAP_WAIT_MS) pending.delete(id);
}

export async function startBlocklistMirror(options: BlocklistMirrorOptions): Promise<BlocklistMirror> {
  const { blocklist, clock } = options;
  const index = createListingIndex();
  const expiring = new Map<string, number>();
  const heap = createExpiryHeap();
  const listeners = new Set<ListingChangeListener>();

  function remove(ip: string): void {
    if (!index.delete(ip)) return;
    for (const l of listeners) l(ip, null);
  }

  function apply(ip: string, listing: Listing | null): void {
    if (listing === null) {
      remove(ip);
      expiring.delete(ip);
      return;
    }
    const value = { returnCode: listing.returnCode, reason: listing.reason, type: listing.type };
    index.set(ip, value);
    for (const l of listeners) l(ip, value);
    if (listing.expiresAt === null) expiring.delete(ip);
    else {
      expiring.set(ip, listing.expiresAt);
      heap.push({ at: listing.expiresAt, ip });
    }
  }

  function expireDue(): void {
    const now = clock();
    for (let top = heap.peek(); top && top.at <= now; top = heap.peek()) {
      heap.pop();
      if (expiring.get(top.ip) === top.at) {
        expiring.delete(top.ip);
        remove(top.ip);
      }
    }
  }

  // The cursor is taken before the snapshot: changes in between are applied twice, harmlessly.
  let cursor = await blocklist.lastEventId();
  const initial: Listing[] = [];
  for await (const listing of blocklist.activeListings()) initial.push(listing);
  index.replaceAll(
    initial.map((l) => ({ ip: l.ip, returnCode: l.returnCode, reason: l.reason, type: l.type })),
  );
  for (const l of initial) {
    if (l.expiresAt !== null) {
      expiring.set(l.ip, l.expiresAt);
      heap.push({ at: l.expiresAt, ip: l.ip });
    }
  }
  const unsubscribe = blocklist.subscribe(apply);

  // Event ids below the cursor that were not seen yet, with the time we started waiting.
  const pending = new Map<number, number>();
  let polling: Promise<void> | null = null;

  async function pollOnce(): Promise<void> {
    const changes = await blocklist.changesSince(cursor, {
      limit: POLL_BATCH,
      eventIds: [...pending.keys()],
    });
    const seen = new Set<number>();
    let top = cursor;
    for (const change of changes) {
      apply(change.ip, change.listing);
      seen.add(change.eventId);
      pending.delete(change.eventId);
      if (change.eventId > top) top = change.eventId;
    }
    // Gap waits are real elapsed time, not the (possibly test-moved) clock of the listings.
    trackGaps(pending, { after: cursor, before: top, seen }, performance.now());
    cursor = top;
    expireDue();
  }

  async function poll(): Promise<void> {
    // One poll at a time; a caller arriving during a poll waits for it and runs another.
    while (polling) await polling;
    polling = pollOnce().finally(() => {
      polling = null;
    });
    await polling;
  }

  const timer = setInterval(() => {
    if (polling) return;
    poll().catch((err: unknown) => options.logger?.warn({ err }, 'blocklist mirror poll failed'));
  }, options.pollMs ?? 250);
  timer.unref();

  return {
    index,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    listingFor(ip) {
      // The index reads any address form; most addresses are not listed, so normalize after.
      const value = index.get(ip);
      if (!value || value.type === undefined) return null;
      const key = normalizeIp(ip);
      if (key === null) return null;
      const expiresAt = expiring.get(key);
      if (expiresAt !== undefined && expiresAt <= clock()) return null;
      return { type: value.type as ListingType };
    },
    poll,
    close() {
      clearInterval(timer);
      unsubscribe();
      listeners.clear();
    },
  };
}
