/** The API key and usage rows (a key read always joins its owner's email and role). */
import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { ApiKeysTable, Database } from '../store/schema.ts';

/** A key row with its owner's email and role (the join every key read makes). */
export type KeyRow = Selectable<ApiKeysTable> & { owner_email: string; owner_role: string };

export function createKeyRows(db: Kysely<Database>) {
  const keyColumns = [
    'api_keys.id',
    'api_keys.owner_id',
    'users.email as owner_email',
    'users.role as owner_role',
    'api_keys.name',
    'api_keys.key_hash',
    'api_keys.display_prefix',
    'api_keys.tier',
    'api_keys.permissions',
    'api_keys.features',
    'api_keys.created_at',
    'api_keys.last_used_at',
    'api_keys.revoked_at',
  ] as const;
  const keysWithOwner = () => db.selectFrom('api_keys').innerJoin('users', 'users.id', 'api_keys.owner_id');

  return {
    async insertKey(k: Insertable<ApiKeysTable>) {
      const row = await db.insertInto('api_keys').values(k).returning('id').executeTakeFirstOrThrow();
      return Number(row.id);
    },
    findKeyByHash(hash: string): Promise<KeyRow | undefined> {
      return keysWithOwner().select(keyColumns).where('api_keys.key_hash', '=', hash).executeTakeFirst();
    },
    findKeyById(id: number): Promise<KeyRow | undefined> {
      return keysWithOwner().select(keyColumns).where('api_keys.id', '=', id).executeTakeFirst();
    },
    listKeys(filter: { ownerId?: number; includeRevoked?: boolean }): Promise<KeyRow[]> {
      let q = keysWithOwner().select(keyColumns);
      if (filter.ownerId !== undefined) q = q.where('api_keys.owner_id', '=', filter.ownerId);
      if (!filter.includeRevoked) q = q.where('api_keys.revoked_at', 'is', null);
      return q.orderBy('api_keys.id').execute();
    },
    async revokeKey(id: number, at: number): Promise<boolean> {
      const res = await db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },
    async setFeatures(id: number, features: string): Promise<boolean> {
      const res = await db.updateTable('api_keys').set({ features }).where('id', '=', id).executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },
    /** Adds counted requests and moves last_used_at forward, in one transaction. */
    async addUsage(
      entries: { keyId: number; day: string; requests: number; lastUsedAt: number }[],
    ): Promise<void> {
      if (entries.length === 0) return;
      await db.transaction().execute(async (trx) => {
        for (const e of entries) {
          await trx
            .insertInto('api_key_usage')
            .values({ key_id: e.keyId, day: e.day, requests: e.requests })
            .onConflict((oc) =>
              oc.columns(['key_id', 'day']).doUpdateSet({
                requests: sql`api_key_usage.requests + ${e.requests}`,
              }),
            )
            .execute();
          await trx
            .updateTable('api_keys')
            .set({ last_used_at: e.lastUsedAt })
            .where('id', '=', e.keyId)
            .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', e.lastUsedAt)]))
            .execute();
        }
      });
    },
    usageSince(keyId: number, fromDay: string) {
      return db
        .selectFrom('api_key_usage')
        .select(['day', 'requests'])
        .where('key_id', '=', keyId)
        .where('day', '>=', fromDay)
        .orderBy('day')
        .execute();
    },
  };
}
