/**
 * Fetches and saves users, keys, usage and sessions; no rules here: the users and sessions rows
 * in store-users.ts, the key and usage rows in store-keys.ts.
 */
import type { Kysely } from 'kysely';
import type { DialectName } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';
import { createKeyRows } from './store-keys.ts';
import { createUserRows } from './store-users.ts';

export type { KeyRow } from './store-keys.ts';

export function createAccountsStore(db: Kysely<Database>, dialect: DialectName) {
  return {
    ...createUserRows(db),
    ...createKeyRows(db),
    dialect,
  };
}

export type AccountsStore = ReturnType<typeof createAccountsStore>;
