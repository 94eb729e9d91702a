/**
 * Real stores for tests: a temporary SQLite file, and a fresh PostgreSQL schema per call
 * (dropped on close). Suites iterate `STORE_KINDS` and skip PostgreSQL with a printed reason
 * when it does not answer.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate, openStore, type Store } from '../../src/store/index.ts';
import { probeBackends, TEST_POSTGRES_URL } from './backends.ts';

export type StoreKind = 'sqlite' | 'postgres';
export const STORE_KINDS: StoreKind[] = ['sqlite', 'postgres'];

const backends = await probeBackends();

/** True when this kind cannot run here; prints why once. */
export function skipStore(kind: StoreKind): boolean {
  if (kind === 'postgres' && !backends.postgres) {
    process.stdout.write(`[skip] PostgreSQL suites skipped: ${backends.postgresReason}\n`);
    return true;
  }
  return false;
}

export interface TestStoreHandle {
  store: Store;
  /** Settings to give a server process so it opens the same store. */
  databaseUrl: string;
  dataDir: string;
  pgSchema: string | undefined;
  /** Opens another connection to the same store (another "process" view). */
  reopen(): Store;
  cleanup(): Promise<void>;
}

export function tempDir(prefix = 'netrep-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function createSchema(): Promise<string> {
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`create schema ${schema}`);
  } finally {
    await client.end();
  }
  return schema;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

/** A migrated store of the given kind. */
export async function createTestStore(
  kind: StoreKind,
  options: {
    migrate?: boolean /** PostgreSQL through another address (a test proxy). */;
    postgresUrl?: string;
  } = {},
): Promise<TestStoreHandle> {
  const dataDir = tempDir();
  const pgSchema = kind === 'postgres' ? await createSchema() : undefined;
  const databaseUrl = kind === 'postgres' ? (options.postgresUrl ?? TEST_POSTGRES_URL) : '';
  const open = () => openStore({ databaseUrl, dataDir, ...(pgSchema ? { pgSchema } : {}), poolSize: 4 });
  const store = open();
  if (options.migrate !== false) await migrate(store.db, store.dialect);
  const opened: Store[] = [store];
  return {
    store,
    databaseUrl,
    dataDir,
    pgSchema,
    reopen: () => {
      const s = open();
      opened.push(s);
      return s;
    },
    cleanup: async () => {
      for (const s of opened) await s.close().catch(() => undefined);
      if (pgSchema) await dropSchema(pgSchema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
