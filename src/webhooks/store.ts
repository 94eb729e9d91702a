/** Fetches and saves saved IPs, webhooks, events, deliveries and attempts; no rules here. */
import type { Generated, Kysely, Transaction } from 'kysely';
import { type DialectName, supportsSkipLocked } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';

export interface SavedIpsTable {
  owner_id: number;
  ip: string;
  label: string | null;
  created_at: number;
}

export interface SavedIpStatesTable {
  ip: string;
  /** JSON of the lookup fields a `saved_ip` event compares (threat level, flags). */
  state: string;
  dataset_version: number | null;
  updated_at: number;
}

export interface WebhooksTable {
  id: Generated<number>;
  owner_id: number;
  url: string;
  /** Kept in clear: every delivery is signed with it (HMAC-SHA256). */
  secret: string;
  created_at: number;
}

export interface WebhookEventsTable {
  id: string;
  owner_id: number;
  origin: string;
  entity_type: string;
  source_key: string;
  entity: string;
  state: string;
  occurred_at: number;
  created_at: number;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  event_id: string;
  /** pending | delivered | dead */
  status: string;
  attempts: number;
  next_attempt_at: number;
  created_at: number;
  updated_at: number;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  webhook_id: number;
  event_id: string;
  attempt: number;
  /** success | failed | dead */
  status: string;
  response_code: number | null;
  error: string | null;
  attempted_at: number;
  next_attempt_at: number | null;
}

export interface WebhookCursorsTable {
  name: string;
  position: number;
}

declare module '../store/schema.ts' {
  interface Database {
    saved_ips: SavedIpsTable;
    saved_ip_states: SavedIpStatesTable;
    webhooks: WebhooksTable;
    webhook_events: WebhookEventsTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_attempts: WebhookAttemptsTable;
    webhook_cursors: WebhookCursorsTable;
  }
}

export type SavedIpRow = SavedIpsTable;
export type WebhookRow = Omit<WebhooksTable, 'id'> & { id: number };
export type EventRow = WebhookEventsTable;
export type AttemptRow = Omit<WebhookAttemptsTable, 'id'> & { id: number };

/** A delivery claimed by a worker: everything needed to send it. */
export interface ClaimedDelivery {
  id: number;
  attempts: number;
  webhookId: number;
  url: string;
  secret: string;
  event: EventRow;
}

/** Writes that share one transaction: an event and its outbox rows, a cursor, a saved state. */
export interface WebhookWriter {
  /**
   * Stores the event once per origin and one pending delivery per webhook of its owner (due at
   * `now`); false when an event of that origin was already stored. `onlyWebhook` limits the
   * deliveries to one hook (the test ping).
   */
  addEvent(event: EventRow, onlyWebhook?: number): Promise<boolean>;
  setCursor(name: string, position: number): Promise<void>;
  putSavedIpState(row: SavedIpStatesTable): Promise<void>;
}

export interface WebhookStore {
  transaction<T>(work: (writer: WebhookWriter) => Promise<T>): Promise<T>;
  putSavedIp(row: SavedIpRow): Promise<void>;
  getSavedIp(ownerId: number, ip: string): Promise<SavedIpRow | undefined>;
  countSavedIps(ownerId: number): Promise<number>;
  listSavedIps(ownerId: number, limit: number, offset: number): Promise<SavedIpRow[]>;
  deleteSavedIp(ownerId: number, ip: string): Promise<boolean>;
  /** Owners that saved any of these addresses, per address. */
  ownersOf(ips: readonly string[]): Promise<Map<string, number[]>>;
  /** Every distinct saved address, in pages after `afterIp`. */
  savedIpPage(afterIp: string | null, limit: number): Promise<string[]>;
  savedIpStates(ips: readonly string[]): Promise<Map<string, SavedIpStatesTable>>;

  createWebhook(row: Omit<WebhookRow, 'id'>): Promise<WebhookRow>;
  countWebhooks(ownerId: number): Promise<number>;
  listWebhooks(ownerId: number): Promise<WebhookRow[]>;
  getWebhook(ownerId: number, id: number): Promise<WebhookRow | undefined>;
  /** Removes the hook with its deliveries and attempt log. */
  deleteWebhook(ownerId: number, id: number): Promise<boolean>;
  attempts(webhookId: number, limit: number, offset: number): Promise<AttemptRow[]>;

  cursor(name: string): Promise<number | null>;
  /** The origins among these that already have an event. */
  knownOrigins(origins: readonly string[]): Promise<Set<string>>;
  /**
   * Marks up to `limit` pending deliveries due at `now` as taken until `leaseUntil` and returns
   * them; on PostgreSQL concurrent workers skip each other's rows (FOR UPDATE SKIP LOCKED). A
   * worker killed mid-delivery leaves the row due again once the lease passes.
   */
  claimDue(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]>;
  /** Logs one attempt and moves its delivery on (delivered, pending again, or dead). */
  recordAttempt(
    attempt: Omit<AttemptRow, 'id'>,
    delivery: { status: string; attempts: number; nextAttemptAt: number; updatedAt: number },
  ): Promise<void>;
  deliveryStatus(webhookId: number, eventId: string): Promise<string | undefined>;
  /** Deletes events created before `before` (with their finished deliveries). */
  pruneEvents(before: number): Promise<void>;
}

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

const toHook = (r: { id: number; owner_id: number; url: string; secret: string; created_at: number }) => ({
  id: Number(r.id),
  owner_id: Number(r.owner_id),
  url: r.url,
  secret: r.secret,
  created_at: Number(r.created_at),
});

export function createWebhookStore(db: Kysely<Database>, dialect: DialectName): WebhookStore {
  return {
    async transaction(work) {
      return await db.transaction().execute((trx) => work(writer(trx)));
    },
    async putSavedIp(row) {
      await db
        .insertInto('saved_ips')
        .values(row)
        .onConflict((oc) => oc.columns(['owner_id', 'ip']).doUpdateSet({ label: row.label }))
        .execute();
    },
    async getSavedIp(ownerId, ip) {
      return await db
        .selectFrom('saved_ips')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('ip', '=', ip)
        .executeTakeFirst();
    },
    async countSavedIps(ownerId) {
      const r = await db
        .selectFrom('saved_ips')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('owner_id', '=', ownerId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async listSavedIps(ownerId, limit, offset) {
      return await db
        .selectFrom('saved_ips')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .orderBy('created_at')
        .orderBy('ip')
        .limit(limit)
        .offset(offset)
        .execute();
    },
    async deleteSavedIp(ownerId, ip) {
      const r = await db
        .deleteFrom('saved_ips')
        .where('owner_id', '=', ownerId)
        .where('ip', '=', ip)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    async ownersOf(ips) {
      const out = new Map<string, number[]>();
      if (ips.length === 0) return out;
      const rows = await db
        .selectFrom('saved_ips')
        .select(['ip', 'owner_id'])
        .where('ip', 'in', [...ips])
        .orderBy('owner_id')
        .execute();
      for (const r of rows) out.set(r.ip, [...(out.get(r.ip) ?? []), Number(r.owner_id)]);
      return out;
    },
    async savedIpPage(afterIp, limit) {
      let q = db.selectFrom('saved_ips').select('ip').distinct();
      if (afterIp !== null) q = q.where('ip', '>', afterIp);
      return (await q.orderBy('ip').limit(limit).execute()).map((r) => r.ip);
    },
    async savedIpStates(ips) {
      const out = new Map<string, SavedIpStatesTable>();
      if (ips.length === 0) return out;
      const rows = await db
        .selectFrom('saved_ip_states')
        .selectAll()
        .where('ip', 'in', [...ips])
        .execute();
      for (const r of rows) out.set(r.ip, r);
      return out;
    },

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
    async claimDue(now, leaseUntil, limit) {
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
    },
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

/**
 * The change log: the append-only logs other modules keep in the same store (blocklist events
 * listed, delisted, expired; pool graduation events). Each is committed in the transaction
 * of its change, so reading them after a cursor turns every change into webhook events
 * at least once, even when the process died right after the change.
 */
export interface BlocklistChange {
  id: number;
  ip: string;
  action: string;
  type: string;
  reason: string;
  returnCode: string;
  expiresAt: number | null;
  performedAt: number;
}

export interface GraduationChange {
  id: number;
  ownerId: number;
  ip: string;
  /** JSON of the aggregate classification fields. */
  state: string;
  occurredAt: number;
}

export interface ChangeLog {
  lastBlocklistId(): Promise<number>;
  blocklistAfter(id: number, limit: number): Promise<BlocklistChange[]>;
  lastGraduationId(): Promise<number>;
  graduationsAfter(id: number, limit: number): Promise<GraduationChange[]>;
}

export function createChangeLog(db: Kysely<Database>): ChangeLog {
  /** The newest id of a change table (0 when empty): where a fresh cursor starts. */
  const lastId = async (table: 'blocklist_events' | 'graduation_events') => {
    const r = await db
      .selectFrom(table)
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return Number(r?.id ?? 0);
  };
  return {
    lastBlocklistId: () => lastId('blocklist_events'),
    async blocklistAfter(id, limit) {
      const rows = await db
        .selectFrom('blocklist_events')
        .select(['id', 'ip', 'action', 'type', 'reason', 'return_code', 'expires_at', 'performed_at'])
        .where('id', '>', id)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        id: Number(r.id),
        ip: r.ip,
        action: r.action,
        type: r.type,
        reason: r.reason,
        returnCode: r.return_code,
        expiresAt: r.expires_at === null ? null : Number(r.expires_at),
        performedAt: Number(r.performed_at),
      }));
    },
    lastGraduationId: () => lastId('graduation_events'),
    async graduationsAfter(id, limit) {
      const rows = await db
        .selectFrom('graduation_events')
        .select(['id', 'owner_id', 'ip', 'state', 'occurred_at'])
        .where('id', '>', id)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        id: Number(r.id),
        ownerId: Number(r.owner_id),
        ip: r.ip,
        state: r.state,
        occurredAt: Number(r.occurred_at),
      }));
    },
  };
}
