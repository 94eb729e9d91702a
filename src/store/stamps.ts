/**
 * Change stamps (migration 0500): a counter per key (an address, or the /24 `a.b.c.0/24` it is
 * in) that every write changing a fact reputation reads raises in its own transaction. Facts
 * kept in memory with the stamps read before them are current while a fresh read of the same
 * stamps gives the same numbers: one indexed read instead of a read per table, exact across
 * instances sharing the store. The price: two transactions raising the same key (two listings
 * in one /24, say) run one after the other, the second waiting on the first's row lock until
 * it commits; keys are raised in sorted order, so they never wait on each other in a cycle.
 */
import { type QueryExecutorProvider, sql } from 'kysely';
import type { PreparedSql } from './prepared.ts';

/** Keys in a stable order, each once (PostgreSQL locks the rows in this order). */
export function stampKeys(keys: Iterable<string | null | undefined>): string[] {
  const out = new Set<string>();
  for (const k of keys) if (k) out.add(k);
  return [...out].sort();
}

/** `insert into input_stamps …` + this raises each key it inserts (a new key starts at 1). */
export const RAISE_STAMP = 'on conflict (key) do update set stamp = input_stamps.stamp + 1';

/** Raises the stamp of every key given as one list parameter (`stampKeys`). */
export const BUMP_STAMPS: PreparedSql = {
  name: 'netrep_stamps_bump',
  sqlite: `insert into input_stamps (key, stamp) select value, 1 from json_each(?) where true ${RAISE_STAMP}`,
  postgres: `insert into input_stamps (key, stamp) select k, 1 from unnest($1::text[]) as k ${RAISE_STAMP}`,
};

/**
 * The PostgreSQL form as a data-modifying CTE, for writes that are one statement: `${name} as
 * (…)` raising the keys of `keys`: parameter `$n` (a text array, in `stampKeys` order) or a
 * select of one text column (ordered, so that writers lock the rows in the same order).
 */
export const bumpStampsCte = (name: string, keys: number | string) => {
  const source = typeof keys === 'number' ? `select unnest($${keys}::text[])` : keys;
  return `${name} as (insert into input_stamps (key, stamp) select k, 1 from (${source}) as s(k) ${RAISE_STAMP} returning 1)`;
};

/** The stamps of the keys given (a key never raised is absent: stamp 0). */
export const READ_STAMPS: PreparedSql = {
  name: 'netrep_stamps_read',
  sqlite: 'select key, stamp from input_stamps where key in (select value from json_each(?))',
  postgres: 'select key, stamp from input_stamps where key = any($1::text[])',
};

/** Raises stamps inside a Kysely transaction (writes that are not prepared statements). */
export async function bumpStampsIn(trx: QueryExecutorProvider, keys: readonly string[]): Promise<void> {
  const rows = stampKeys(keys).map((key) => sql`(${key}, 1)`);
  if (rows.length === 0) return;
  await sql`insert into input_stamps (key, stamp) values ${sql.join(rows)} ${sql.raw(RAISE_STAMP)}`.execute(
    trx,
  );
}
