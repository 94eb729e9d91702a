/** The blocklist's reads: active listings (with the prepared reads reputation makes) and events. */
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Prepared, PreparedSql } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';
import type { BlocklistStore } from './store-types.ts';

const active = (now: number) => (eb: ExpressionBuilder<Database, 'blocklist_listings'>) =>
  eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);

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

type ListingReads =
  | 'activeListing'
  | 'activeListings'
  | 'activePage'
  | 'countActiveByType'
  | 'countActiveInSubnet24'
  | 'activeTypes'
  | 'countActiveInSubnets'
  | 'hasDue';

export function createListingReads(
  db: Kysely<Database>,
  prepared: Prepared,
): Pick<BlocklistStore, ListingReads> {
  return {
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
    async countActiveInSubnet24(subnet24, now) {
      const row = await db
        .selectFrom('blocklist_listings')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('subnet24', '=', subnet24)
        .where(active(now))
        .executeTakeFirstOrThrow();
      return Number(row.n);
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
    async hasDue(now) {
      const row = await db
        .selectFrom('blocklist_listings')
        .select('ip')
        .where('expires_at', '<=', now)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

type EventReads =
  | 'countEventsSince'
  | 'recentEvents'
  | 'countEvents'
  | 'listedEventTimes'
  | 'listedEventTimesMany'
  | 'eventsAfter'
  | 'eventsByIds'
  | 'lastEventId';

export function createEventReads(db: Kysely<Database>, prepared: Prepared): Pick<BlocklistStore, EventReads> {
  return {
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
    async lastEventId() {
      const row = await db
        .selectFrom('blocklist_events')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },
  };
}
