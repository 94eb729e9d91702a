/** Fetches and saves blocklist listings and events; the rules live in blocklist.ts. */
import type { ExpressionBuilder, Generated, Kysely, Transaction } from 'kysely';
import { type DialectName, supportsSkipLocked } from '../store/dialect.ts';
import { createPrepared, type Prepared, type PreparedSql } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';
import { bumpStampsIn } from '../store/stamps.ts';

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

const active = (now: number) => (eb: ExpressionBuilder<Database, 'blocklist_listings'>) =>
  eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);

function writer(trx: Transaction<Database>, dialect: DialectName): BlocklistWriter {
  return {
    async lockListing(ip) {
      const q = trx.selectFrom('blocklist_listings').selectAll().where('ip', '=', ip);
      return await (dialect === 'postgres' ? q.forUpdate() : q).executeTakeFirst();
    },
    async putListing(row) {
      await trx
        .insertInto('blocklist_listings')
        .values(row)
        .onConflict((oc) =>
          oc.column('ip').doUpdateSet({
            type: row.type,
            reason: row.reason,
            return_code: row.return_code,
            listed_at: row.listed_at,
            expires_at: row.expires_at,
            updated_at: row.updated_at,
          }),
        )
        .execute();
    },
    async deleteListing(ip) {
      return await trx
        .deleteFrom('blocklist_listings')
        .where('ip', '=', ip)
        .returningAll()
        .executeTakeFirst();
    },
    async deleteDue(now, limit) {
      // The outer `expires_at <= now` is re-checked by PostgreSQL on a row another transaction
      // changed meanwhile (a re-listing with a later expiry survives); SKIP LOCKED lets two
      // instances split the due rows instead of queueing on each other.
      const due = trx
        .selectFrom('blocklist_listings')
        .select('ip')
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit);
      return await trx
        .deleteFrom('blocklist_listings')
        .where('expires_at', '<=', now)
        .where('ip', 'in', supportsSkipLocked(dialect) ? due.forUpdate().skipLocked() : due)
        .returningAll()
        .execute();
    },
    async addEvent(event) {
      const row = await trx
        .insertInto('blocklist_events')
        .values(event)
        .returning('id')
        .executeTakeFirstOrThrow();
      // Every listing change is an event: the address's facts and its /24's count changed.
      await bumpStampsIn(trx, event.subnet24 === null ? [event.ip] : [event.ip, event.subnet24]);
      return Number(row.id);
    },
  };
}

/** The reads reputation makes on every answer, prepared once (store/prepared.ts). */
const LIST_SQLITE = 'in (select value from json_each(?))';
const REPUTATION_READS = {
  activeTypes: {
    name: 'netrep_blocklist_active_types',
    sqlite: `select ip, type, expires_at from blocklist_listings where ip ${LIST_SQLITE} and (expires_at is null or expires_at > ?)`,
    postgres:
      'select ip, type, expires_at from blocklist_listings where ip = any($1::text[]) and (expires_at is null or expires_at > $2)',
  },
  listedTimes: {
    name: 'netrep_blocklist_listed_times',
    sqlite: `select ip, performed_at from blocklist_events where ip ${LIST_SQLITE} and action = 'listed' and performed_at >= ? order by performed_at`,
    postgres:
      "select ip, performed_at from blocklist_events where ip = any($1::text[]) and action = 'listed' and performed_at >= $2 order by performed_at",
  },
  subnetCounts: {
    name: 'netrep_blocklist_subnet_counts',
    sqlite: `select subnet24, count(*) as n, min(expires_at) as first_expiry from blocklist_listings where subnet24 ${LIST_SQLITE} and (expires_at is null or expires_at > ?) group by subnet24`,
    postgres:
      'select subnet24, count(*) as n, min(expires_at) as first_expiry from blocklist_listings where subnet24 = any($1::text[]) and (expires_at is null or expires_at > $2) group by subnet24',
  },
} satisfies Record<string, PreparedSql>;

export function createBlocklistStore(
  db: Kysely<Database>,
  dialect: DialectName,
  prepared: Prepared = createPrepared({ db, dialect }),
): BlocklistStore {
  return {
    async transaction(work) {
      return await db.transaction().execute((trx) => work(writer(trx, dialect)));
    },
    async activeListing(ip, now) {
      return await db
        .selectFrom('blocklist_listings')
        .selectAll()
        .where('ip', '=', ip)
        .where(active(now))
        .executeTakeFirst();
    },
    async activeListings(ips, now) {
      if (ips.length === 0) return [];
      return await db
        .selectFrom('blocklist_listings')
        .selectAll()
        .where('ip', 'in', [...ips])
        .where(active(now))
        .execute();
    },
    async activePage(afterIp, now, limit) {
      let q = db.selectFrom('blocklist_listings').selectAll().where(active(now));
      if (afterIp !== null) q = q.where('ip', '>', afterIp);
      return await q.orderBy('ip').limit(limit).execute();
    },
    async countActiveByType(now) {
      const rows = await db
        .selectFrom('blocklist_listings')
        .select(['type', (eb) => eb.fn.countAll<number>().as('n')])
        .where(active(now))
        .groupBy('type')
        .execute();
      return rows.map((r) => ({ type: r.type, n: Number(r.n) }));
    },
    async countEventsSince(action, since) {
      const row = await db
        .selectFrom('blocklist_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('action', '=', action)
        .where('performed_at', '>', since)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async recentEvents(limit, offset) {
      const rows = await db
        .selectFrom('blocklist_events')
        .selectAll()
        .orderBy('performed_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((r) => ({ ...r, id: Number(r.id) }));
    },
    async countEvents() {
      const row = await db
        .selectFrom('blocklist_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async countActiveInSubnet24(subnet24, now) {
      const row = await db
        .selectFrom('blocklist_listings')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('subnet24', '=', subnet24)
        .where(active(now))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async listedEventTimes(ip, since) {
      const rows = await db
        .selectFrom('blocklist_events')
        .select('performed_at')
        .where('ip', '=', ip)
        .where('action', '=', 'listed')
        .where('performed_at', '>=', since)
        .orderBy('performed_at')
        .execute();
      return rows.map((r) => Number(r.performed_at));
    },
    async activeTypes(ips, now) {
      if (ips.length === 0) return new Map();
      const rows = await prepared.all<{ ip: string; type: string; expires_at: number | null }>(
        REPUTATION_READS.activeTypes,
        [[...ips], now],
      );
      return new Map(
        rows.map((r) => [
          r.ip,
          { type: r.type, expiresAt: r.expires_at === null ? null : Number(r.expires_at) },
        ]),
      );
    },
    async countActiveInSubnets(subnets, now) {
      if (subnets.length === 0) return new Map();
      const rows = await prepared.all<{ subnet24: string; n: number; first_expiry: number | null }>(
        REPUTATION_READS.subnetCounts,
        [[...subnets], now],
      );
      return new Map(
        rows.map((r) => [
          r.subnet24,
          { count: Number(r.n), firstExpiry: r.first_expiry === null ? null : Number(r.first_expiry) },
        ]),
      );
    },
    async listedEventTimesMany(ips, since) {
      const out = new Map<string, number[]>();
      if (ips.length === 0) return out;
      const rows = await prepared.all<{ ip: string; performed_at: number }>(REPUTATION_READS.listedTimes, [
        [...ips],
        since,
      ]);
      for (const r of rows) {
        const list = out.get(r.ip) ?? [];
        list.push(Number(r.performed_at));
        out.set(r.ip, list);
      }
      return out;
    },
    async eventsAfter(id, limit) {
      const rows = await db
        .selectFrom('blocklist_events')
        .select(['id', 'ip'])
        .where('id', '>', id)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((r) => ({ id: Number(r.id), ip: r.ip }));
    },
    async eventsByIds(ids) {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('blocklist_events')
        .select(['id', 'ip'])
        .where('id', 'in', [...ids])
        .execute();
      return rows.map((r) => ({ id: Number(r.id), ip: r.ip }));
    },
    async hasDue(now) {
      const row = await db
        .selectFrom('blocklist_listings')
        .select('ip')
        .where('expires_at', '<=', now)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
    async lastEventId() {
      const row = await db
        .selectFrom('blocklist_events')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },
  };
}
