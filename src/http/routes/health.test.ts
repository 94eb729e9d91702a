/** Liveness and readiness on the real app: with and without a dataset to wait for. */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { createIntelTestApp } from '../../../test/helpers/intel-app.ts';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('health routes', () => {
  it('/healthz answers ok without a key', async () => {
    t = await createTestApp('sqlite');
    const res = await t.app.http.inject({ url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ status: 'ok' });
  });

  it('/readyz lists its checks; with a dataset, its version is in meta', async () => {
    t = await createTestApp('sqlite');
    const bare = (await t.app.http.inject({ url: '/readyz' })).json();
    expect(bare.data).toMatchObject({ status: 'ready', checks: [{ name: 'store', ok: true }] });
    expect(bare.data.dataset).toMatchObject({ version: null, upstream: false, families: [] });
    expect(bare.meta.dataset_version).toBeUndefined();
    await t.close();
    t = await createIntelTestApp('sqlite');
    const res = await t.app.http.inject({ url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.checks).toContainEqual({ name: 'dataset', ok: true, detail: 'v1' });
    expect(res.json().meta.dataset_version).toBe(1);
  });
});
