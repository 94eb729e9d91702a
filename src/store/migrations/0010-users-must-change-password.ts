import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * 1 while a user still signs in with a password they did not choose (the first administrator's
 * one-time password, a generated one): the dashboard asks for a new one before anything else.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('must_change_password', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
