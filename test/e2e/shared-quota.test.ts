/**
 * Two real server processes on one PostgreSQL and one Redis share a key's daily quota. Each
 * serves the run's small fixture snapshot (test/helpers/datasets.ts), so neither builds one
 * from the npm packages while the test runs.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { probeBackends, TEST_POSTGRES_URL, TEST_REDIS_URL } from '../helpers/backends.ts';
import { seedDataset } from '../helpers/datasets.ts';
import { type NetrepProcess, pgUrlWithSchema, runNetrep, startNetrep } from '../helpers/process.ts';
import { createSchema, dropSchema, tempDir } from '../helpers/stores.ts';

const backends = await probeBackends();
const skip = !backends.postgres || !backends.redis;
if (skip) process.stdout.write('[skip] shared-quota e2e skipped: needs PostgreSQL and Redis\n');

describe.skipIf(skip)('two instances on PostgreSQL + Redis', () => {
  const procs: NetrepProcess[] = [];
  let schema = '';
  const dirs: string[] = [];
  afterAll(async () => {
    for (const p of procs) await p.stop();
    if (schema) await dropSchema(schema);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('share one quota: the 11th request across both gets 429', async () => {
    schema = await createSchema();
    const common = {
      NETREP_DATABASE_URL: pgUrlWithSchema(TEST_POSTGRES_URL, schema),
      NETREP_REDIS_URL: TEST_REDIS_URL,
      NETREP_REDIS_PREFIX: `e2e-${crypto.randomBytes(4).toString('hex')}`,
      NETREP_TIER_QUOTAS: 'free=10',
      NETREP_ADMIN_EMAIL: 'ops@example.test',
      NETREP_ADMIN_PASSWORD: 'correct-horse-battery',
      NETREP_DNSBL_LISTEN: '',
      NETREP_LISTEN: '127.0.0.1:0',
    };
    const envFor = () => {
      const dir = tempDir();
      dirs.push(dir);
      return { ...common, NETREP_DATA_DIR: dir };
    };
    const served = async () => {
      const env = envFor();
      expect(await seedDataset(env.NETREP_DATA_DIR, 'fixture-a')).toBe(1);
      return startNetrep(env);
    };
    const [a, b] = await Promise.all([served(), served()]);
    procs.push(a, b);
    const made = runNetrep(
      ['keys', 'create', '--name', 'shared', '--tier', 'free', '--permissions', 'admin'],
      envFor(),
    );
    expect(made.status, made.stderr).toBe(0);
    const key = made.stdout.trim().split('\n').at(-1)!;
    expect(key).toMatch(/^nrp_[A-Za-z0-9]{40}$/);
    const call = (base: string) =>
      fetch(`${base}/v1/admin/keys/1/features`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ telemetry_ingest: false }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await call(i % 2 ? a.url : b.url)).status);
    expect(statuses).toEqual(Array(10).fill(200));
    const overA = await call(a.url);
    const overB = await call(b.url);
    expect([overA.status, overB.status]).toEqual([429, 429]);
    expect(overA.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await overB.json()) as { data: { code: string } }).data.code).toBe('RATE_LIMIT_EXCEEDED');
  }, 180_000);
});
