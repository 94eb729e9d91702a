/** Saves and reads pool classifications and graduation events; no rules here. */
import type { Generated, Kysely } from 'kysely';
import type { DialectName } from '../store/index.ts';
import type { Database } from '../store/schema.ts';
import type { GraduationState, PoolClassificationItem, PoolTier } from './types.ts';

export interface PoolClassificationsTable {
  owner_id: number;
  ip: string;
  tier: string;
  reputation_score: number;
  warmup_status: string;
  listed: number;
  fcrdns_status: string;
  first_classified_at: number;
  classified_at: number;
}

export interface GraduationEventsTable {
  id: Generated<number>;
  owner_id: number;
  ip: string;
  entity_type: string;
  source_key: string;
  /** JSON of GraduationState: aggregate classification fields only (spec §6). */
  state: string;
  occurred_at: number;
}

declare module '../store/schema.ts' {
  interface Database {
    pool_classifications: PoolClassificationsTable;
    graduation_events: GraduationEventsTable;
  }
}

/** Spec §6: graduation events use entity_type and source_key `email_pool`. */
export const EMAIL_POOL = 'email_pool';
/** Spec §8: graduation events are retained for 30 days. */
export const GRADUATION_RETENTION_MS = 30 * 86_400_000;

export interface GraduationEvent {
  id: number;
  ownerId: number;
  ip: string;
  entityType: typeof EMAIL_POOL;
  sourceKey: typeof EMAIL_POOL;
  state: GraduationState;
  occurredAt: number;
}

export interface PoolStore {
  /**
   * In one transaction: reads the owner's previous tiers of these addresses (locked on
   * PostgreSQL so two concurrent classifications cannot both graduate an address), lets
   * `decide` name the graduations, stores the new classifications and the events, and prunes
   * events past retention. Returns the stored events.
   */
  classify(
    ownerId: number,
    items: readonly PoolClassificationItem[],
    now: number,
    decide: (previous: ReadonlyMap<string, PoolTier>) => { ip: string; state: GraduationState }[],
  ): Promise<GraduationEvent[]>;
  /** The owner's graduation events at or after `since`, oldest first. */
  graduationEvents(ownerId: number, since: number): Promise<GraduationEvent[]>;
}

function toEvent(row: {
  id: number;
  owner_id: number;
  ip: string;
  state: string;
  occurred_at: number;
}): GraduationEvent {
  return {
    id: Number(row.id),
    ownerId: Number(row.owner_id),
    ip: row.ip,
    entityType: EMAIL_POOL,
    sourceKey: EMAIL_POOL,
    state: JSON.parse(row.state) as GraduationState,
    occurredAt: Number(row.occurred_at),
  };
}

export function createPoolStore(db: Kysely<Database>, dialect: DialectName): PoolStore {
  return {
    async classify(ownerId, items, now, decide) {
      if (items.length === 0) return [];
      return await db.transaction().execute(async (trx) => {
        let previousQuery = trx
          .selectFrom('pool_classifications')
          .select(['ip', 'tier'])
          .where('owner_id', '=', ownerId)
          .where(
            'ip',
            'in',
            items.map((i) => i.ip),
          );
        // SQLite serialises write transactions; PostgreSQL needs the row locks.
        if (dialect === 'postgres') previousQuery = previousQuery.forUpdate();
        const previous = new Map((await previousQuery.execute()).map((r) => [r.ip, r.tier as PoolTier]));
        const graduations = decide(previous);
        // One statement for every address, in address order (concurrent writers lock alike).
        const rows = [...items]
          .sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0))
          .map((item) => ({
            owner_id: ownerId,
            ip: item.ip,
            first_classified_at: now,
            tier: item.tier,
            reputation_score: item.reputation_score,
            warmup_status: item.warmup_status,
            listed: item.listed ? 1 : 0,
            fcrdns_status: item.fcrdns_status,
            classified_at: now,
          }));
        await trx
          .insertInto('pool_classifications')
          .values(rows)
          .onConflict((oc) =>
            oc.columns(['owner_id', 'ip']).doUpdateSet((eb) => ({
              tier: eb.ref('excluded.tier'),
              reputation_score: eb.ref('excluded.reputation_score'),
              warmup_status: eb.ref('excluded.warmup_status'),
              listed: eb.ref('excluded.listed'),
              fcrdns_status: eb.ref('excluded.fcrdns_status'),
              classified_at: eb.ref('excluded.classified_at'),
            })),
          )
          .execute();
        const events: GraduationEvent[] = [];
        for (const g of graduations) {
          const row = await trx
            .insertInto('graduation_events')
            .values({
              owner_id: ownerId,
              ip: g.ip,
              entity_type: EMAIL_POOL,
              source_key: EMAIL_POOL,
              state: JSON.stringify(g.state),
              occurred_at: now,
            })
            .returning(['id', 'owner_id', 'ip', 'state', 'occurred_at'])
            .executeTakeFirstOrThrow();
          events.push(toEvent(row));
        }
        await trx
          .deleteFrom('graduation_events')
          .where('occurred_at', '<', now - GRADUATION_RETENTION_MS)
          .execute();
        return events;
      });
    },

    async graduationEvents(ownerId, since) {
      const rows = await db
        .selectFrom('graduation_events')
        .select(['id', 'owner_id', 'ip', 'state', 'occurred_at'])
        .where('owner_id', '=', ownerId)
        .where('occurred_at', '>=', since)
        .orderBy('id', 'asc')
        .execute();
      return rows.map(toEvent);
    },
  };
}
