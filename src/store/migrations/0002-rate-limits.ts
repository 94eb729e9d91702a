import type { Kysely } from 'kysely';
import { bigIntType, type DialectName } from '../dialect.ts';

/** The table rate-limiter-flexible's SQLite and PostgreSQL limiters use for daily quotas. */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', dialect === 'postgres' ? 'varchar(255)' : 'text', (c) => c.primaryKey())
    .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expire', bigIntType(dialect))
    .execute();
}
