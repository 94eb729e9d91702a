/** Fetches and saves blocklist listings and events; the rules live in blocklist.ts. */
import type { Kysely, Transaction } from 'kysely';
import { type DialectName, supportsSkipLocked } from '../store/dialect.ts';
import { createPrepared, type Prepared } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';
import { bumpStampsIn } from '../store/stamps.ts';
import { createEventReads, createListingReads } from './store-reads.ts';
import type { BlocklistStore, BlocklistWriter } from './store-types.ts';

export type * from './store-types.ts';

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

export function createBlocklistStore(
  db: Kysely<Database>,
  dialect: DialectName,
  prepared: Prepared = createPrepared({ db, dialect }),
): BlocklistStore {
  return {
    async transaction(work) {
      return await db.transaction().execute((trx) => work(writer(trx, dialect)));
    },
    ...createListingReads(db, prepared),
    ...createEventReads(db, prepared),
  };
}
