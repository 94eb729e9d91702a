/** The webhook tables, their rows and WebhookStore, the interface of store.ts. */
import type { Generated } from 'kysely';

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
