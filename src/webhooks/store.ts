/**
 * Fetches and saves saved IPs, webhooks, events, deliveries and attempts; no rules here. The
 * tables and the WebhookStore interface are in store-types.ts; saved IPs in store-saved-ips.ts,
 * webhooks and deliveries in store-hooks.ts, the change log other modules keep in store-changes.ts.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DialectName } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';
import { createDeliveryRows, createHookRows } from './store-hooks.ts';
import { createSavedIpRows } from './store-saved-ips.ts';
import type { WebhookStore, WebhookWriter } from './store-types.ts';

export * from './store-changes.ts';
export type * from './store-types.ts';

function writer(trx: Transaction<Database>): WebhookWriter {
  return {
    async addEvent(event, onlyWebhook) {
      const inserted = await trx
        .insertInto('webhook_events')
        .values(event)
        .onConflict((oc) => oc.column('origin').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) return false;
      let hooks = trx.selectFrom('webhooks').select('id').where('owner_id', '=', event.owner_id);
      if (onlyWebhook !== undefined) hooks = hooks.where('id', '=', onlyWebhook);
      const ids = (await hooks.execute()).map((r) => Number(r.id));
      if (ids.length > 0)
        await trx
          .insertInto('webhook_deliveries')
          .values(
            ids.map((webhook_id) => ({
              webhook_id,
              event_id: event.id,
              status: 'pending',
              attempts: 0,
              next_attempt_at: event.created_at,
              created_at: event.created_at,
              updated_at: event.created_at,
            })),
          )
          .execute();
      return true;
    },
    async setCursor(name, position) {
      await trx
        .insertInto('webhook_cursors')
        .values({ name, position })
        .onConflict((oc) => oc.column('name').doUpdateSet({ position }))
        .execute();
    },
    async putSavedIpState(row) {
      await trx
        .insertInto('saved_ip_states')
        .values(row)
        .onConflict((oc) =>
          oc.column('ip').doUpdateSet({
            state: row.state,
            dataset_version: row.dataset_version,
            updated_at: row.updated_at,
          }),
        )
        .execute();
    },
  };
}

export function createWebhookStore(db: Kysely<Database>, dialect: DialectName): WebhookStore {
  return {
    async transaction(work) {
      return await db.transaction().execute((trx) => work(writer(trx)));
    },
    ...createSavedIpRows(db),
    ...createHookRows(db),
    ...createDeliveryRows(db, dialect),
  };
}
