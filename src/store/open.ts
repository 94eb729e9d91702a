/**
 * Opens the store: SQLite in the data dir (WAL) when no database URL is set, PostgreSQL
 * for `postgres://` URLs. Kysely and the drivers live only in store/ and the modules' store.ts.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type pg from 'pg';
import type { DialectName } from './dialect.ts';
import type { Database } from './schema.ts';

/**
 * pg, loaded by the first PostgreSQL store: a process on SQLite (a CLI command's start among
 * them, issue #36 item 2) does not pay for its modules.
 */
let pgModule: typeof pg | null = null;
function loadPg(): typeof pg {
  if (pgModule) return pgModule;
  pgModule = createRequire(import.meta.url)('pg') as typeof pg;
  // PostgreSQL int8 arrives as text by default; our int8 columns hold epoch ms and counters,
  // all far below 2^53.
  pgModule.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
  return pgModule;
}

export interface Store {
  db: Kysely<Database>;
  dialect: DialectName;
  /** The raw better-sqlite3 handle (SQLite only): rate limits keep their table in the same file. */
  sqlite: SqliteDatabase.Database | null;
  /** The pg pool (PostgreSQL only). */
  pgPool: pg.Pool | null;
  /** Human-readable location for logs. */
  location: string;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  databaseUrl: string;
  dataDir: string;
  /** PostgreSQL schema to use (tests use a fresh one each). */
  pgSchema?: string;
  /** SQLite file name inside dataDir; ':memory:' for a private in-memory database. */
  sqliteFile?: string;
  poolSize?: number;
}

export function openStore(options: OpenStoreOptions): Store {
  const url = options.databaseUrl.trim();
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new (loadPg().Pool)({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
      statement_timeout: 10_000,
      ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
    });
    // An idle client that loses its server must not crash the process.
    pool.on('error', () => undefined);
    // Nor a checked-out one (pg-pool listens only on idle clients): its query fails with the
    // error (503 STORE_UNAVAILABLE), and the pool drops the dead client when it is released.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const safeUrl = new URL(url);
    safeUrl.password = '';
    return {
      db,
      dialect: 'postgres',
      sqlite: null,
      pgPool: pool,
      location: `${safeUrl.toString()}${options.pgSchema ? ` (schema ${options.pgSchema})` : ''}`,
      close: async () => {
        await db.destroy();
      },
    };
  }
  if (url !== '')
    throw new Error(`NETREP_DATABASE_URL must be empty (SQLite) or a postgres:// URL, got ${url}`);
  const file =
    options.sqliteFile === ':memory:'
      ? ':memory:'
      : path.join(options.dataDir, options.sqliteFile ?? 'netrep.sqlite');
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  let closed = false;
  return {
    db,
    dialect: 'sqlite',
    sqlite,
    pgPool: null,
    location: file,
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

/**
 * SQLite's `PRAGMA data_version`: it changes when another connection (another process) has
 * committed to the file since this connection last looked, and not for this connection's own
 * writes. With `minIntervalMs`, the pragma (a read of the WAL index, a few microseconds and a
 * system call) runs at most that often and the last value stands in between.
 */
export function sqliteDataVersion(sqlite: SqliteDatabase.Database, minIntervalMs = 0): () => number {
  const stmt = sqlite.prepare('PRAGMA data_version').pluck();
  let value = 0;
  let readAt = Number.NEGATIVE_INFINITY;
  return () => {
    const now = performance.now();
    if (now - readAt >= minIntervalMs) {
      value = Number(stmt.get());
      readAt = now;
    }
    return value;
  };
}
