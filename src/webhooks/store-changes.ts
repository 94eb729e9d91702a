/** The change log other modules keep in the store, read by the webhook sources (sources.ts). */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';

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
