/** The blocklist tables, their rows and BlocklistStore, the interface of store.ts. */
import type { Generated } from 'kysely';

export interface ListingsTable {
  /** Normalized by core/ip.ts. */
  ip: string;
  family: number;
  /** IPv4 only: the /24 network, `a.b.c.0/24`. */
  subnet24: string | null;
  type: string;
  reason: string;
  return_code: string;
  listed_at: number;
  /** null: permanent. */
  expires_at: number | null;
  updated_at: number;
}

export interface EventsTable {
  id: Generated<number>;
  ip: string;
  subnet24: string | null;
  action: string;
  type: string;
  reason: string;
  return_code: string;
  listed_at: number;
  expires_at: number | null;
  delisted_at: number | null;
  performed_at: number;
  /** Who made the change: `key:<id>`, `cli`, `expiry`, … */
  actor: string;
}

declare module '../store/schema.ts' {
  interface Database {
    blocklist_listings: ListingsTable;
    blocklist_events: EventsTable;
  }
}

export type ListingRow = ListingsTable;
export type EventRow = Omit<EventsTable, 'id'> & { id: number };
export type NewEventRow = Omit<EventsTable, 'id'>;

/** Writes that must share one transaction with their event. */
export interface BlocklistWriter {
  /** Reads a row and, on PostgreSQL, locks it until the transaction ends. */
  lockListing(ip: string): Promise<ListingRow | undefined>;
  putListing(row: ListingRow): Promise<void>;
  deleteListing(ip: string): Promise<ListingRow | undefined>;
  /** Removes up to `limit` rows whose expiry has passed; concurrent callers never share a row. */
  deleteDue(now: number, limit: number): Promise<ListingRow[]>;
  addEvent(event: NewEventRow): Promise<number>;
}

export interface BlocklistStore {
  transaction<T>(work: (writer: BlocklistWriter) => Promise<T>): Promise<T>;
  activeListing(ip: string, now: number): Promise<ListingRow | undefined>;
  activeListings(ips: readonly string[], now: number): Promise<ListingRow[]>;
  /** Active rows in pages ordered by ip, starting after `afterIp`. */
  activePage(afterIp: string | null, now: number, limit: number): Promise<ListingRow[]>;
  countActiveByType(now: number): Promise<{ type: string; n: number }[]>;
  countEventsSince(action: string, since: number): Promise<number>;
  recentEvents(limit: number, offset: number): Promise<EventRow[]>;
  countEvents(): Promise<number>;
  countActiveInSubnet24(subnet24: string, now: number): Promise<number>;
  listedEventTimes(ip: string, since: number): Promise<number[]>;
  /** Type and expiry (null: none) of the active listing of each address given (none: absent). */
  activeTypes(
    ips: readonly string[],
    now: number,
  ): Promise<Map<string, { type: string; expiresAt: number | null }>>;
  /** Active listings per /24 given and the earliest expiry among them (null: none expires; no listing: absent). */
  countActiveInSubnets(
    subnets: readonly string[],
    now: number,
  ): Promise<Map<string, { count: number; firstExpiry: number | null }>>;
  /** `listed` event times per address at or after `since`, oldest first (no events: absent). */
  listedEventTimesMany(ips: readonly string[], since: number): Promise<Map<string, number[]>>;
  eventsAfter(id: number, limit: number): Promise<{ id: number; ip: string }[]>;
  eventsByIds(ids: readonly number[]): Promise<{ id: number; ip: string }[]>;
  hasDue(now: number): Promise<boolean>;
  /** Largest event id so far (0 when none): where a fresh instance starts following changes. */
  lastEventId(): Promise<number>;
}
