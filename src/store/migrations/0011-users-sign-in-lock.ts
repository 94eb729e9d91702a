import type { Kysely } from 'kysely';
import { bigIntType, type DialectName } from '../dialect.ts';

/**
 * The per-account sign-in limit (accounts README): failed sign-ins counted since
 * `failed_since` (epoch ms); `locked_until` (epoch ms) refuses sign-ins to the account until
 * then, whatever address they come from.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigIntType(dialect);
  await db.schema
    .alterTable('users')
    .addColumn('failed_sign_ins', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('users').addColumn('failed_since', big).execute();
  await db.schema.alterTable('users').addColumn('locked_until', big).execute();
}
