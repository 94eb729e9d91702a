/** Fetches and saves users, keys, usage and sessions; no rules here. */
import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { DialectName } from '../store/dialect.ts';
import type { ApiKeysTable, Database } from '../store/schema.ts';

/** A key row with its owner's email and role (the join every key read makes). */
export type KeyRow = Selectable<ApiKeysTable> & { owner_email: string; owner_role: string };

export function createAccountsStore(db: Kysely<Database>, dialect: DialectName) {
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
    async insertUser(u: {
      email: string;
      password_hash: string;
      role: string;
      created_at: number;
      must_change_password: number;
    }) {
      const row = await db.insertInto('users').values(u).returning('id').executeTakeFirstOrThrow();
      return Number(row.id);
    },
    findUserByEmail(email: string) {
      return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    },
    findUserById(id: number) {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async countAdmins(): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('role', '=', 'admin')
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    listUsers() {
      return db
        .selectFrom('users')
        .select([
          'id',
          'email',
          'role',
          'created_at',
          'must_change_password',
          'failed_sign_ins',
          'failed_since',
          'locked_until',
        ])
        .orderBy('id')
        .execute();
    },
    /**
     * Counts one failed sign-in in one statement (concurrent failures from many addresses all
     * count): a count older than `windowStart` starts again at 1. Returns the count.
     */
    async addFailedSignIn(id: number, now: number, windowStart: number): Promise<number> {
      const fresh = sql<boolean>`failed_since is not null and failed_since > ${windowStart}`;
      const row = await db
        .updateTable('users')
        .set({
          failed_sign_ins: sql`case when ${fresh} then failed_sign_ins + 1 else 1 end`,
          failed_since: sql`case when ${fresh} then failed_since else ${now} end`,
        })
        .where('id', '=', id)
        .returning('failed_sign_ins')
        .executeTakeFirst();
      return Number(row?.failed_sign_ins ?? 0);
    },
    async lockUser(id: number, until: number): Promise<void> {
      await db.updateTable('users').set({ locked_until: until }).where('id', '=', id).execute();
    },
    /** Forgets failures and any lock (a good sign-in, an administrator's unlock). */
    async clearSignInFailures(id: number): Promise<void> {
      await db
        .updateTable('users')
        .set({ failed_sign_ins: 0, failed_since: null, locked_until: null })
        .where('id', '=', id)
        .execute();
    },
    async setPassword(id: number, passwordHash: string, mustChange: boolean): Promise<void> {
      await db
        .updateTable('users')
        .set({ password_hash: passwordHash, must_change_password: mustChange ? 1 : 0 })
        .where('id', '=', id)
        .execute();
    },
    async deleteSessionsOf(userId: number, except: string): Promise<void> {
      await db.deleteFrom('sessions').where('user_id', '=', userId).where('id_hash', '!=', except).execute();
    },
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
    insertSession(s: {
      id_hash: string;
      user_id: number;
      csrf_token: string;
      created_at: number;
      expires_at: number;
    }) {
      return db.insertInto('sessions').values(s).execute();
    },
    findSession(idHash: string) {
      return db.selectFrom('sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    },
    deleteSession(idHash: string) {
      return db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
    },
    deleteExpiredSessions(now: number) {
      return db.deleteFrom('sessions').where('expires_at', '<', now).execute();
    },
    dialect,
  };
}

export type AccountsStore = ReturnType<typeof createAccountsStore>;
