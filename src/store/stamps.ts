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

/** Raises the stamp of every key given as one list parameter (`stampKeys`). */
export const BUMP_STAMPS: PreparedSql = {
  name: 'netrep_stamps_bump',
  sqlite: `insert into input_stamps (key, stamp) select value, 1 from json_each(?) where true
    on conflict (key) do update set stamp = input_stamps.stamp + 1`,
  postgres: `insert into input_stamps (key, stamp) select k, 1 from unnest($1::text[]) as k
    on conflict (key) do update set stamp = input_stamps.stamp + 1`,
};

/**
 * The PostgreSQL form as a data-modifying CTE, for writes that are one statement: `${name} as
 * (…)` raising the keys of parameter `$n` (a text array).
 */
export const bumpStampsCte = (name: string, param: number) =>
  `${name} as (insert into input_stamps (key, stamp) select k, 1 from unnest($${param}::text[]) as k
    on conflict (key) do update set stamp = input_stamps.stamp + 1 returning 1)`;

/** The stamps of the keys given (a key never raised is absent: stamp 0). */
export const READ_STAMPS: PreparedSql = {
  name: 'netrep_stamps_read',
  sqlite: 'select key, stamp from input_stamps where key in (select value from json_each(?))',
  postgres: 'select key, stamp from input_stamps where key = any($1::text[])',
};

/** Raises stamps inside a Kysely transaction (writes that are not prepared statements). */
export async function bumpStampsIn(trx: QueryExecutorProvider, keys: readonly string[]): Promise<void> {
  for (const key of stampKeys(keys)) {
    await sql`insert into input_stamps (key, stamp) values (${key}, 1)
      on conflict (key) do update set stamp = input_stamps.stamp + 1`.execute(trx);
  }
}
