/**
 * Issue 32, item 5: two real server processes on one PostgreSQL and one Redis reached through a
 * TCP proxy on 127.0.0.1. Across a Redis cut a free key's daily quota stays exact (each instance
 * allows half of what it last read was left, and adds it back when Redis returns), and /readyz
 * answers 200 throughout, saying the limits are degraded; /metrics says so too.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { probeBackends, TEST_POSTGRES_URL, TEST_REDIS_URL } from '../helpers/backends.ts';
import { seedDataset } from '../helpers/datasets.ts';
import { type NetrepProcess, pgUrlWithSchema, runNetrep, startNetrep } from '../helpers/process.ts';
import { createSchema, dropSchema, tempDir } from '../helpers/stores.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

const backends = await probeBackends();
const skip = !backends.postgres || !backends.redis;
if (skip) process.stdout.write('[skip] redis-outage e2e skipped: needs PostgreSQL and Redis\n');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Readiness {
  status: number;
  redis: { ok: boolean; degraded?: boolean; detail?: string } | undefined;
}

async function readiness(base: string): Promise<Readiness> {
  const res = await fetch(`${base}/readyz`);
  const body = (await res.json()) as { data: { checks?: { name: string; ok: boolean }[] } };
  return { status: res.status, redis: body.data.checks?.find((c) => c.name === 'redis') };
}

async function metric(base: string, name: string): Promise<number | null> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : null;
}

/** Waits until each instance counts both (it heard the other's heartbeat). */
async function waitForBothInstances(bases: string[]): Promise<void> {
  for (let round = 0; ; round++) {
    const counted = await Promise.all(bases.map((u) => metric(u, 'netrep_limits_instances')));
    if (counted.every((n) => n === 2)) return;
    if (round > 40) throw new Error(`instances counted: ${counted.join(', ')}`);
    await sleep(250);
  }
}

/** Every instance's /readyz answers 200 with Redis ok but degraded. */
async function expectDegradedReadiness(bases: string[]): Promise<void> {
  for (const u of bases) {
    const r = await readiness(u);
    expect(r.status).toBe(200);
    expect(r.redis).toMatchObject({ ok: true, degraded: true });
  }
}

/** Calls the instances in turn for `ms` (readiness checked every 10 calls); the statuses answered. */
async function callDuringCut(
  bases: string[],
  call: (base: string) => Promise<number>,
  ms: number,
): Promise<number[]> {
  const statuses: number[] = [];
  const cutEnds = Date.now() + ms;
  let i = 0;
  while (Date.now() < cutEnds) {
    statuses.push(await call(bases[i++ % 2]!));
    if (i % 10 === 0) await expectDegradedReadiness(bases);
    await sleep(20);
  }
  return statuses;
}

/** Waits until every instance is ready and no longer degraded. */
async function waitForRecovery(bases: string[]): Promise<void> {
  for (let round = 0; ; round++) {
    const states = await Promise.all(bases.map((u) => readiness(u)));
    if (states.every((r) => r.status === 200 && r.redis?.degraded === undefined)) return;
    if (round > 60) throw new Error(`still degraded: ${JSON.stringify(states)}`);
    await sleep(250);
  }
}

describe.skipIf(skip)('a free key through a Redis cut on two instances', () => {
  const procs: NetrepProcess[] = [];
  const dirs: string[] = [];
  let schema = '';
  let proxy: TcpProxy | null = null;
  afterAll(async () => {
    for (const p of procs) await p.stop();
    await proxy?.close();
    if (schema) await dropSchema(schema);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('keeps the daily quota exact and /readyz at 200 (degraded) while Redis is away', async () => {
    const target = new URL(TEST_REDIS_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    schema = await createSchema();
    const common = {
      NETREP_DATABASE_URL: pgUrlWithSchema(TEST_POSTGRES_URL, schema),
      NETREP_REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      NETREP_REDIS_PREFIX: `e2e-${crypto.randomBytes(4).toString('hex')}`,
      NETREP_TIER_QUOTAS: 'free=40',
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
    // The run's snapshot of the fixture packages (test/helpers/datasets.ts) in each data dir, so neither instance builds one
    // from the npm packages while the test runs.
    const served = async () => {
      const env = envFor();
      await seedDataset(env.NETREP_DATA_DIR, 'fixture-a');
      return env;
    };
    const [a, b] = await Promise.all([startNetrep(await served()), startNetrep(await served())]);
    procs.push(a, b);
    const made = runNetrep(
      ['keys', 'create', '--name', 'free', '--tier', 'free', '--permissions', 'admin'],
      envFor(),
    );
    expect(made.status, made.stderr).toBe(0);
    const key = made.stdout.trim().split('\n').at(-1)!;
    const call = async (base: string) =>
      (
        await fetch(`${base}/v1/admin/keys/1/features`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ telemetry_ingest: false }),
        })
      ).status;
    const bases = [a.url, b.url];

    // Before the cut: 10 of 40, alternating; each instance heard the other's heartbeat.
    for (let i = 0; i < 10; i++) expect(await call(bases[i % 2]!)).toBe(200);
    await waitForBothInstances(bases);
    for (const u of bases) expect((await readiness(u)).redis).toMatchObject({ ok: true, detail: 'ready' });

    proxy.cut();
    // The 20 s cut.
    const statuses = await callDuringCut(bases, call, 20_000);
    for (const u of bases) expect(await metric(u, 'netrep_limits_degraded')).toBe(1);
    const allowedDuring = statuses.filter((s) => s === 200).length;
    expect(new Set(statuses)).toEqual(new Set([200, 429]));
    // Each instance allows half of what it last read was left: (40-9)/2 + (40-10)/2 = 30.
    expect(allowedDuring).toBe(30);

    proxy.restore();
    await waitForRecovery(bases);
    for (const u of bases) expect(await metric(u, 'netrep_limits_local_pending')).toBe(0);
    // The day is spent: 40 answered in all, whichever instance is asked.
    expect([await call(a.url), await call(b.url)]).toEqual([429, 429]);
  }, 180_000);
});
