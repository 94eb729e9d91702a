/** Webhooks as their owners manage them, their delivery attempts, and the deliveries' lease. */
import type { Kysely } from 'kysely';
import { type DialectName, supportsSkipLocked } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';
import type { ClaimedDelivery, WebhookStore } from './store-types.ts';

const toHook = (r: { id: number; owner_id: number; url: string; secret: string; created_at: number }) => ({
  id: Number(r.id),
  owner_id: Number(r.owner_id),
  url: r.url,
  secret: r.secret,
  created_at: Number(r.created_at),
});

/** The owners' side: create, list, read, delete, and the attempts log. */
export function createHookRows(
  db: Kysely<Database>,
): Pick<
  WebhookStore,
  'createWebhook' | 'countWebhooks' | 'listWebhooks' | 'getWebhook' | 'deleteWebhook' | 'attempts'
> {
  return {
    async createWebhook(row) {
      const r = await db.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow();
      return toHook(r);
    },
    async countWebhooks(ownerId) {
      const r = await db
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('owner_id', '=', ownerId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async listWebhooks(ownerId) {
      const rows = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .orderBy('id')
        .execute();
      return rows.map(toHook);
    },
    async getWebhook(ownerId, id) {
      const r = await db
        .selectFrom('webhooks')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('id', '=', id)
        .executeTakeFirst();
      return r ? toHook(r) : undefined;
    },
    async deleteWebhook(ownerId, id) {
      return await db.transaction().execute(async (trx) => {
        const r = await trx
          .deleteFrom('webhooks')
          .where('owner_id', '=', ownerId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (Number(r.numDeletedRows) === 0) return false;
        await trx.deleteFrom('webhook_attempts').where('webhook_id', '=', id).execute();
        await trx.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
        return true;
      });
    },
    async attempts(webhookId, limit, offset) {
      const rows = await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('webhook_id', '=', webhookId)
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((r) => ({
        ...r,
        id: Number(r.id),
        delivery_id: Number(r.delivery_id),
        webhook_id: Number(r.webhook_id),
        attempted_at: Number(r.attempted_at),
        next_attempt_at: r.next_attempt_at === null ? null : Number(r.next_attempt_at),
      }));
    },
  };
}

/** WebhookStore.claimDue (store-types.ts). */
async function claimDue(
  db: Kysely<Database>,
  dialect: DialectName,
  now: number,
  leaseUntil: number,
  limit: number,
): Promise<ClaimedDelivery[]> {
  const ids = await db.transaction().execute(async (trx) => {
    const due = trx
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(limit);
    const rows = await (supportsSkipLocked(dialect) ? due.forUpdate().skipLocked() : due).execute();
    const taken = rows.map((r) => Number(r.id));
    if (taken.length > 0)
      await trx
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: leaseUntil })
        .where('id', 'in', taken)
        .execute();
    return taken;
  });
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select([
      'd.id as id',
      'd.attempts as attempts',
      'w.id as webhook_id',
      'w.url as url',
      'w.secret as secret',
      'e.id as event_id',
      'e.owner_id as owner_id',
      'e.origin as origin',
      'e.entity_type as entity_type',
      'e.source_key as source_key',
      'e.entity as entity',
      'e.state as state',
      'e.occurred_at as occurred_at',
      'e.created_at as created_at',
    ])
    .where('d.id', 'in', ids)
    .orderBy('d.id')
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    attempts: Number(r.attempts),
    webhookId: Number(r.webhook_id),
    url: r.url,
    secret: r.secret,
    event: {
      id: r.event_id,
      owner_id: Number(r.owner_id),
      origin: r.origin,
      entity_type: r.entity_type,
      source_key: r.source_key,
      entity: r.entity,
      state: r.state,
      occurred_at: Number(r.occurred_at),
      created_at: Number(r.created_at),
    },
  }));
}

/** The deliverer's side: cursors, due deliveries under a lease, attempts and pruning. */
export function createDeliveryRows(
  db: Kysely<Database>,
  dialect: DialectName,
): Pick<
  WebhookStore,
  'cursor' | 'knownOrigins' | 'claimDue' | 'recordAttempt' | 'deliveryStatus' | 'pruneEvents'
> {
  return {
    async cursor(name) {
      const r = await db
        .selectFrom('webhook_cursors')
        .select('position')
        .where('name', '=', name)
        .executeTakeFirst();
      return r ? Number(r.position) : null;
    },
    async knownOrigins(origins) {
      if (origins.length === 0) return new Set();
      const rows = await db
        .selectFrom('webhook_events')
        .select('origin')
        .where('origin', 'in', [...origins])
        .execute();
      return new Set(rows.map((r) => r.origin));
    },
    claimDue: (now, leaseUntil, limit) => claimDue(db, dialect, now, leaseUntil, limit),
    async recordAttempt(attempt, delivery) {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('webhook_attempts').values(attempt).execute();
        await trx
          .updateTable('webhook_deliveries')
          .set({
            status: delivery.status,
            attempts: delivery.attempts,
            next_attempt_at: delivery.nextAttemptAt,
            updated_at: delivery.updatedAt,
          })
          .where('id', '=', attempt.delivery_id)
          .execute();
      });
    },
    async deliveryStatus(webhookId, eventId) {
      const r = await db
        .selectFrom('webhook_deliveries')
        .select('status')
        .where('webhook_id', '=', webhookId)
        .where('event_id', '=', eventId)
        .executeTakeFirst();
      return r?.status;
    },
    async pruneEvents(before) {
      await db.transaction().execute(async (trx) => {
        const old = trx.selectFrom('webhook_events').select('id').where('created_at', '<', before);
        await trx.deleteFrom('webhook_attempts').where('event_id', 'in', old).execute();
        await trx.deleteFrom('webhook_deliveries').where('event_id', 'in', old).execute();
        await trx.deleteFrom('webhook_events').where('created_at', '<', before).execute();
      });
    },
  };
}
