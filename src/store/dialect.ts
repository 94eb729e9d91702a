/**
 * Where SQLite and PostgreSQL differ, the branch lives here (STYLE.md §9). Columns use
 * portable types: integers for epoch-millisecond times and 0/1 flags, text for JSON.
 */
import type { CreateTableBuilder, Kysely } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/** Adds an auto-increment integer primary key named `id`. */
export function addIdColumn<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: DialectName,
): CreateTableBuilder<T, 'id'> {
  return dialect === 'postgres'
    ? table.addColumn('id', 'bigserial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** The integer type wide enough for epoch milliseconds and counters. */
export function bigIntType(dialect: DialectName): 'bigint' | 'integer' {
  return dialect === 'postgres' ? 'bigint' : 'integer';
}

/** `FOR UPDATE SKIP LOCKED` exists only on PostgreSQL; SQLite serialises writers anyway. */
export function supportsSkipLocked(dialect: DialectName): boolean {
  return dialect === 'postgres';
}

/** Checks the database answers; used by /readyz and by the evidence guards. */
export async function ping<DB>(db: Kysely<DB>): Promise<void> {
  await (db as unknown as Kysely<unknown>).selectNoFrom((eb) => eb.lit(1).as('one')).execute();
}
