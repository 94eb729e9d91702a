/**
 * Several instances (CONTRACT §10): two apps on one PostgreSQL, each with its own data dir
 * holding the same dataset version, and one on SQLite, give the same request_hash and the same
 * sample; workers of two instances claiming at once never hold the same job (SKIP LOCKED).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { datasetFixture } from '../../test/helpers/intel-app.ts';
import { createTestStore, skipStore, type TestStoreHandle, tempDir } from '../../test/helpers/stores.ts';
import { createAuditStore } from '../audit/index.ts';
import { systemClock } from '../core/clock.ts';
import { buildDataset } from '../dataset/index.ts';

const REQUEST = { targets: ['AS64500', '198.51.100.0/24'], seed: 'instances', max_samples: 300 };

describe.skipIf(skipStore('postgres'))('audit jobs across instances', () => {
  let pg: TestStoreHandle;
  let lite: TestStoreHandle;
  let otherDir: string;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    pg = await createTestStore('postgres');
    lite = await createTestStore('sqlite');
    otherDir = tempDir();
    for (const dir of [pg.dataDir, lite.dataDir, otherDir]) {
      await buildDataset({ dataDir: dir, clock: systemClock, npmDir: datasetFixture('npm-a') });
    }
    const config = { workers: false };
    apps.push(await createTestApp('postgres', { handle: pg, config }));
    apps.push(await createTestApp('postgres', { handle: { ...pg, dataDir: otherDir }, config }));
    apps.push(await createTestApp('sqlite', { handle: lite, config }));
  }, 180_000);
  afterAll(async () => {
    for (const a of apps) await a.close();
    await pg?.cleanup();
    await lite?.cleanup();
    if (otherDir) fs.rmSync(otherDir, { recursive: true, force: true });
  });

  const create = async (t: TestApp, body: Record<string, unknown>) => {
    const key = await t.key({ permissions: ['audit:write'] });
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/v1/audit/jobs',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ ...body, dataset_version: t.app.services.datasetVersion() }),
    });
    expect(res.statusCode).toBe(202);
    return res.json().data.job as {
      id: number;
      request_hash: string;
      sampling_manifest: { addresses: string[] };
    };
  };

  it('gives the same request_hash and sample on every instance and store', async () => {
    const jobs = [];
    for (const t of apps) jobs.push(await create(t, REQUEST));
    const [a, b, c] = jobs;
    expect(a?.sampling_manifest.addresses).toHaveLength(300);
    expect(b?.sampling_manifest).toEqual(a?.sampling_manifest);
    expect(c?.sampling_manifest).toEqual(a?.sampling_manifest);
    expect(new Set(jobs.map((j) => j.request_hash)).size).toBe(1);
  });

  it('lets two instances claim at once without ever sharing a job', async () => {
    const [one, two] = apps as [TestApp, TestApp];
    for (let i = 0; i < 12; i++) await create(one, { ips: [`192.0.2.${i}`], seed: `claim-${i}` });
    const stores = [createAuditStore(one.app.store), createAuditStore(two.app.store)];
    const due = (
      await one.app.store.db.selectFrom('audit_jobs').select('id').where('status', '=', 'queued').execute()
    ).length;
    // Each instance claims until it finds nothing due; a job locked by the other is skipped.
    const drain = async (k: 0 | 1) => {
      const got: number[] = [];
      for (;;) {
        const c = await stores[k]?.claim(`w${k}`, Date.now(), 60_000);
        if (!c) return got;
        got.push(c.job.id);
      }
    };
    const [x, y] = await Promise.all([drain(0), drain(1)]);
    const ids = [...x, ...y];
    expect(ids).toHaveLength(due);
    expect(new Set(ids).size).toBe(due);
  });
});
