import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { migrate, migrationNames } from './migrate.ts';

describe.each(STORE_KINDS)('migrations on %s', (kind) => {
  let handle: TestStoreHandle | undefined;
  afterEach(async () => {
    await handle?.cleanup();
    handle = undefined;
  });

  it.skipIf(skipStore(kind))('apply from empty, once, and are idempotent', async () => {
    handle = await createTestStore(kind, { migrate: false });
    const { store } = handle;
    const first = await migrate(store.db, store.dialect);
    expect(first).toEqual(migrationNames().map((n) => n.replace(/\.ts$/, '')));
    expect(first.length).toBeGreaterThan(0);
    expect(await migrate(store.db, store.dialect)).toEqual([]);
    const rows = await sql<{ name: string }>`select name from netrep_migrations order by name`.execute(
      store.db,
    );
    expect(rows.rows.map((r) => r.name)).toEqual(first);
    // The accounts tables exist and accept rows.
    await store.db
      .insertInto('users')
      .values({ email: 'a@example.test', password_hash: 'x', role: 'admin', created_at: 1 })
      .execute();
    const users = await store.db.selectFrom('users').selectAll().execute();
    expect(users).toHaveLength(1);
    expect(typeof users[0]?.id).toBe('number');
  });

  // A SQLite file is owned by one process; the race matters for instances sharing PostgreSQL.
  it.skipIf(kind === 'sqlite' || skipStore(kind))(
    'two migrators racing apply each migration once',
    async () => {
      handle = await createTestStore(kind, { migrate: false });
      const other = handle.reopen();
      const [a, b] = await Promise.all([
        migrate(handle.store.db, handle.store.dialect),
        migrate(other.db, other.dialect),
      ]);
      expect([...a, ...b].sort()).toEqual(migrationNames().map((n) => n.replace(/\.ts$/, '')));
    },
  );
});
