/**
 * Hot queries written once per dialect and prepared once (issue 18). Kysely builds and compiles
 * a query on every call and its SQLite driver prepares the statement again each time; on a hot
 * read that costs several times the query itself. Here:
 * - SQLite: a cached better-sqlite3 statement, run synchronously, but only while no Kysely
 *   transaction is open on the shared connection (a raw read would then see that transaction's
 *   uncommitted rows, and a raw write would join it); otherwise the statement queues behind
 *   Kysely's connection like any other query.
 * - PostgreSQL: a named statement, parsed and planned once per connection.
 * A list is bound as one parameter: write `in (select value from json_each(?))` for SQLite and
 * `= any($n::text[])` for PostgreSQL, and pass a JavaScript array: it is sent as JSON text to
 * SQLite and as an array to PostgreSQL.
 */
import type SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, type Kysely } from 'kysely';
import type { DialectName } from './dialect.ts';
import type { Store } from './open.ts';

/** One statement in both dialects; `name` identifies it (PostgreSQL statement names are global). */
export interface PreparedSql {
  name: string;
  sqlite: string;
  postgres: string;
}

/** One statement and the rows of values it runs with, inside a transaction. */
export interface PreparedStep {
  sql: PreparedSql;
  rows: readonly (readonly unknown[])[];
}

/** Runs a statement inside a synchronous SQLite write (`Prepared.sqliteWrite`). */
export interface SqliteWriter {
  run(sql: PreparedSql, values: readonly unknown[]): { lastInsertRowid: number };
}

export interface Prepared {
  dialect: DialectName;
  /**
   * SQLite only: `work` runs synchronously in one transaction while this caller holds Kysely's
   * connection (so no other transaction is open or can begin), with cached statements.
   */
  sqliteWrite<T>(work: (w: SqliteWriter) => T): Promise<T>;
  all<R>(sql: PreparedSql, values: readonly unknown[]): Promise<R[]>;
  /** Runs every step with each of its rows, all in one transaction. */
  transaction(steps: readonly PreparedStep[]): Promise<void>;
}

type PreparedStore = Pick<Store, 'db' | 'dialect'> & Partial<Pick<Store, 'sqlite' | 'pgPool'>>;

const sqliteValue = (v: unknown) => (Array.isArray(v) ? JSON.stringify(v) : v);

export function createPrepared(store: PreparedStore): Prepared {
  const { dialect } = store;
  const db = store.db as unknown as Kysely<unknown>;
  const text = (sql: PreparedSql) => (dialect === 'postgres' ? sql.postgres : sql.sqlite);
  const values = (vs: readonly unknown[]) => (dialect === 'sqlite' ? vs.map(sqliteValue) : [...vs]);
  const sqlite = store.sqlite ?? null;
  const pool = store.pgPool ?? null;
  const statements = new Map<string, SqliteDatabase.Statement>();
  const statement = (conn: SqliteDatabase.Database, sql: PreparedSql) => {
    let stmt = statements.get(sql.name);
    if (stmt === undefined) {
      stmt = conn.prepare(sql.sqlite);
      statements.set(sql.name, stmt);
    }
    return stmt;
  };

  return {
    dialect,
    async all<R>(sql: PreparedSql, vs: readonly unknown[]): Promise<R[]> {
      if (sqlite !== null && !sqlite.inTransaction) return statement(sqlite, sql).all(...values(vs)) as R[];
      if (pool !== null) {
        return (await pool.query({ name: sql.name, text: sql.postgres, values: values(vs) })).rows as R[];
      }
      return (await db.executeQuery<R>(CompiledQuery.raw(text(sql), values(vs)))).rows as R[];
    },

    async sqliteWrite(work) {
      if (sqlite === null) throw new Error('sqliteWrite needs the SQLite handle');
      const writer: SqliteWriter = {
        run: (sql, vs) => ({
          lastInsertRowid: Number(statement(sqlite, sql).run(...values(vs)).lastInsertRowid),
        }),
      };
      return await db.connection().execute(async () => sqlite.transaction(() => work(writer))());
    },

    async transaction(steps) {
      if (sqlite !== null && !sqlite.inTransaction) {
        const run = sqlite.transaction(() => {
          for (const step of steps) {
            const stmt = statement(sqlite, step.sql);
            for (const row of step.rows) stmt.run(...values(row));
          }
        });
        run();
        return;
      }
      await db.transaction().execute(async (trx) => {
        for (const step of steps) {
          for (const row of step.rows) await trx.executeQuery(CompiledQuery.raw(text(step.sql), values(row)));
        }
      });
    },
  };
}
