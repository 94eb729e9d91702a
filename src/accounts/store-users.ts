/** The users and sessions rows: sign-in state, passwords, dashboard sessions. */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.ts';

export function createUserRows(db: Kysely<Database>) {
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
  };
}
