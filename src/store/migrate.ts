/**
 * One ordered, forward-only set of migrations for both dialects: every file in
 * ./migrations named `NNNN-name.ts` exporting `up(db, dialect)`, applied in name order.
 * Each migration runs in its own transaction and is recorded in `netrep_migrations`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Kysely, sql } from 'kysely';
import type { DialectName } from './dialect.ts';

interface MigrationModule {
  up(db: Kysely<unknown>, dialect: DialectName): Promise<void>;
}

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// `.js` where the tree was compiled to dist/ (bin/build.js); the recorded name has no extension.
const NAME = /^\d{4}-[a-z0-9-]+\.[tj]s$/;

export function migrationNames(): string[] {
  return fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => NAME.test(f) && !f.endsWith('.test.ts'))
    .sort();
}

/**
 * Applies pending migrations; returns the names applied. On PostgreSQL the whole run holds an
 * advisory lock inside one transaction (DDL is transactional there), so instances starting
 * together apply each migration once. A SQLite file belongs to one process at a time.
 */
export async function migrate<DB>(database: Kysely<DB>, dialect: DialectName): Promise<string[]> {
  const db = database as unknown as Kysely<unknown>;
  return await db.transaction().execute(async (trx) => {
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(7316001)`.execute(trx);
    await trx.schema
      .createTable('netrep_migrations')
      .ifNotExists()
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('applied_at', 'text', (c) => c.notNull())
      .execute();
    const done = await sql<{ name: string }>`select name from netrep_migrations`.execute(trx);
    const have = new Set(done.rows.map((r) => r.name));
    const applied: string[] = [];
    for (const file of migrationNames()) {
      const name = file.replace(/\.[tj]s$/, '');
      if (have.has(name)) continue;
      const mod = (await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href)) as MigrationModule;
      await mod.up(trx, dialect);
      await sql`insert into netrep_migrations (name, applied_at) values (${name}, ${new Date().toISOString()})`.execute(
        trx,
      );
      applied.push(name);
    }
    return applied;
  });
}
