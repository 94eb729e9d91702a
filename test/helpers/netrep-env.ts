/**
 * The environment of a real `netrep` process on a fresh store, for the end-to-end tests that
 * kill and restart it: a temporary data directory and, on PostgreSQL, a schema of its own, both
 * removed by the cleanups the caller runs; no Redis, no DNSBL listener, a free HTTP port, a known
 * administrator, and the run's small fixture snapshot (test/helpers/datasets.ts) as dataset v1,
 * so the process serves at once instead of building one from the npm packages (50-60 s of CPU
 * per start; the first-start build has its own test, test/e2e/fresh-start.test.ts).
 */
import fs from 'node:fs';
import { TEST_POSTGRES_URL } from './backends.ts';
import { seedDataset } from './datasets.ts';
import { pgUrlWithSchema, runNetrep } from './process.ts';
import { createSchema, dropSchema, type StoreKind, tempDir } from './stores.ts';

export async function netrepStoreEnv(kind: StoreKind, cleanups: (() => Promise<void> | void)[]) {
  const dataDir = tempDir();
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  await seedDataset(dataDir, 'fixture-a');
  const schema = kind === 'postgres' ? await createSchema() : undefined;
  if (schema) cleanups.push(() => dropSchema(schema));
  const env = {
    NETREP_DATA_DIR: dataDir,
    NETREP_DATABASE_URL: schema ? pgUrlWithSchema(TEST_POSTGRES_URL, schema) : '',
    NETREP_REDIS_URL: '',
    NETREP_DNSBL_LISTEN: '',
    NETREP_LISTEN: '127.0.0.1:0',
    NETREP_ADMIN_EMAIL: 'ops@example.test',
    NETREP_ADMIN_PASSWORD: 'correct-horse-battery',
  };
  return { env, dataDir, schema };
}

/**
 * The environment of a real `netrep serve` on SQLite in `dataDir` with no Redis, DNSBL listener
 * or reachable resolver, a free HTTP port, a known administrator and info logs (the dataset
 * tests read its load lines): the broken-snapshot and reload-latency suites.
 */
export function sqliteServeEnv(dataDir: string): Record<string, string> {
  return {
    NETREP_DATA_DIR: dataDir,
    NETREP_LISTEN: '127.0.0.1:0',
    NETREP_DNSBL_LISTEN: '',
    NETREP_REDIS_URL: '',
    NETREP_DATABASE_URL: '',
    NETREP_DNS_SERVERS: '127.0.0.1:9',
    NETREP_ADMIN_EMAIL: 'ops@example.test',
    NETREP_ADMIN_PASSWORD: 'correct-horse-battery',
    NETREP_LOG_LEVEL: 'info',
  };
}

/** An enterprise key with ip:read and admin, made by `netrep keys create` (exits non-zero: throws). */
export function adminKey(env: Record<string, string>): string {
  const made = runNetrep(
    ['keys', 'create', '--name', 'ops', '--tier', 'enterprise', '--permissions', 'ip:read,admin'],
    env,
  );
  if (made.status !== 0) throw new Error(`netrep keys create exited ${made.status}: ${made.stderr}`);
  return made.stdout.trim().split('\n').at(-1) ?? '';
}
