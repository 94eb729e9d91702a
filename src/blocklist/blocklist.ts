/**
 * The service-owned blocklist (spec §2.4, §3.3, CONTRACT §4). Every change and its event are
 * written in one transaction; an expiry is recorded once, as a `delisted` event with reason
 * `expired`, by whichever caller of `expireDue` removes the row first.
 */
import { type Clock, DAY_MS } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { ipv4Slash24, parseIp } from '../core/ip.ts';
import { createPrepared, type Store } from '../store/index.ts';
import { type BlocklistWriter, createBlocklistStore, type EventRow, type ListingRow } from './store.ts';
import {
  type BlocklistStats,
  DEFAULT_RETURN_CODES,
  type DelistOptions,
  LISTING_TYPES,
  type ListInput,
  type Listing,
  type ListingChange,
  type ListingEvent,
  type ListingType,
  MAX_REASON_LENGTH,
} from './types.ts';

export const EXPIRED_REASON = 'expired';
export const EXPIRY_ACTOR = 'expiry';
const DEFAULT_DELIST_REASON = 'delisted';
const EXPIRE_BATCH = 500;
const PAGE = 1000;
const MAX_CHECK_MANY = 1000;

/** What a local change reports to listeners (the DNS index follows it). */
export type ListingListener = (ip: string, listing: Listing | null) => void;

export interface BlocklistDeps {
  /** The opened store (SQLite or PostgreSQL), migrated. */
  store: Pick<Store, 'db' | 'dialect'> & Partial<Pick<Store, 'sqlite' | 'pgPool'>>;
  clock: Clock;
}

export type Blocklist = ReturnType<typeof createBlocklist>;

function isListingType(value: unknown): value is ListingType {
  return typeof value === 'string' && (LISTING_TYPES as readonly string[]).includes(value);
}

/** Strict dotted quad in 127.0.0.0/8, not 127.0.0.1 (CONTRACT §4). */
export function isValidReturnCode(code: string): boolean {
  const parsed = parseIp(code);
  return (
    parsed !== null &&
    parsed.family === 4 &&
    parsed.address === code &&
    parsed.bytes[0] === 127 &&
    code !== '127.0.0.1'
  );
}

/** A reason is served in DNS TXT and JSON: printable, bounded, not blank. */
export function validReason(reason: unknown, field = 'reason'): string {
  if (typeof reason !== 'string' || reason.trim() === '')
    throw new AppError('INVALID_BODY', `${field} must be a non-empty string`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
  if (/[\u0000-\u001f\u007f]/.test(reason))
    throw new AppError('INVALID_BODY', `${field} contains control characters`);
  if (reason.length > MAX_REASON_LENGTH)
    throw new AppError('INVALID_BODY', `${field} is longer than ${MAX_REASON_LENGTH} characters`);
  return reason.trim();
}

export function toListing(row: ListingRow): Listing {
  return {
    ip: row.ip,
    family: row.family === 6 ? 6 : 4,
    type: row.type as ListingType,
    reason: row.reason,
    returnCode: row.return_code,
    listedAt: Number(row.listed_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    updatedAt: Number(row.updated_at),
  };
}

export function toEvent(row: EventRow): ListingEvent {
  return {
    id: row.id,
    ip: row.ip,
    action: row.action === 'delisted' ? 'delisted' : 'listed',
    type: row.type as ListingType,
    reason: row.reason,
    returnCode: row.return_code,
    listedAt: Number(row.listed_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    delistedAt: row.delisted_at === null ? null : Number(row.delisted_at),
    performedAt: Number(row.performed_at),
    actor: row.actor,
  };
}

function requireIp(ip: unknown): { address: string; family: 4 | 6; subnet24: string | null } {
  const parsed = parseIp(ip);
  if (!parsed) throw new AppError('INVALID_IP', `invalid IP address: ${String(ip).slice(0, 64)}`);
  return {
    address: parsed.address,
    family: parsed.family,
    subnet24: parsed.family === 4 ? ipv4Slash24(parsed) : null,
  };
}

async function recordExpiry(w: BlocklistWriter, row: ListingRow): Promise<void> {
  const at = Number(row.expires_at);
  await w.addEvent({
    ip: row.ip,
    subnet24: row.subnet24,
    action: 'delisted',
    type: row.type,
    reason: EXPIRED_REASON,
    return_code: row.return_code,
    listed_at: row.listed_at,
    expires_at: row.expires_at,
    delisted_at: at,
    performed_at: at,
    actor: EXPIRY_ACTOR,
  });
}

export function createBlocklist(deps: BlocklistDeps) {
  const { clock } = deps;
  const store = createBlocklistStore(deps.store.db, deps.store.dialect, createPrepared(deps.store));
  const listeners = new Set<ListingListener>();
  const notify = (ip: string, listing: Listing | null) => {
    for (const fn of listeners) fn(ip, listing);
  };

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
    /** Local changes (made through this instance), after they commit. */
    subscribe(listener: ListingListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /**
     * Lists an address, or re-lists it (updating type, reason, code and expiry; a still-active
     * listing keeps its listed_at). Each call records one `listed` event.
     */
    async list(input: ListInput): Promise<Listing> {
      const ip = requireIp(input.ip);
      if (!isListingType(input.type))
        throw new AppError('INVALID_BODY', 'type must be spam, malware or phishing');
      const reason = validReason(input.reason);
      const returnCode = input.returnCode ?? DEFAULT_RETURN_CODES[input.type];
      if (typeof returnCode !== 'string' || !isValidReturnCode(returnCode))
        throw new AppError(
          'INVALID_BODY',
          `return_code must be an address in 127.0.0.0/8 other than 127.0.0.1: ${String(returnCode).slice(0, 20)}`,
        );
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
    async delist(ipInput: string, options: DelistOptions = {}): Promise<Listing | null> {
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

    /** Spec §2.4 statistics; due expiries are recorded first so the counts agree with each other. */
    async stats(): Promise<BlocklistStats> {
      await expireDue();
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

    /** Events newest first; due expiries are recorded first. */
    async recent({ limit, offset }: { limit: number; offset: number }): Promise<ListingEvent[]> {
      await expireDue();
      return (await store.recentEvents(limit, offset)).map(toEvent);
    },

    expireDue,

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

    /**
     * For reputation (spec §2.5 listing signals), several addresses with one read per table:
     * each address's active listing type, its `listed` event times at or after `sinceMs`, and
     * the active listings of its /24 (itself included; null for IPv6), and `changesAt`: the
     * first moment these facts change by time alone (a listing of the address or its /24
     * expires; null: none does). Other changes are events, which raise the change stamps.
     */
    async listingFactsMany(
      ipInputs: readonly string[],
      sinceMs: number,
    ): Promise<
      Map<
        string,
        {
          activeListing: ListingType | null;
          listedEvents: number[];
          subnetActiveListings: number | null;
          changesAt: number | null;
        }
      >
    > {
      const ips = ipInputs.map(requireIp);
      const addresses = [...new Set(ips.map((ip) => ip.address))];
      const subnets = [...new Set(ips.flatMap((ip) => (ip.subnet24 === null ? [] : [ip.subnet24])))];
      const now = clock();
      const [active, events, counts] = await Promise.all([
        store.activeTypes(addresses, now),
        store.listedEventTimesMany(addresses, sinceMs),
        store.countActiveInSubnets(subnets, now),
      ]);
      const earliest = (a: number | null, b: number | null) =>
        a === null ? b : b === null ? a : Math.min(a, b);
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
    },

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
