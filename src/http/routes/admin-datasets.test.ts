/** POST /v1/admin/datasets/reload on the real app: swaps in the newest built snapshot, admin only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../../test/helpers/intel-app.ts';

let t: IntelTestApp;
let admin: string;

beforeAll(async () => {
  t = await createIntelTestApp('sqlite');
  admin = await t.key({ permissions: ['admin'] });
});
afterAll(async () => {
  await t.close();
});

const reload = (key: string) =>
  t.app.http.inject({ method: 'POST', url: '/v1/admin/datasets/reload', headers: { 'x-api-key': key } });

describe('POST /v1/admin/datasets/reload', () => {
  it('answers reloaded: false while the newest snapshot is served, true after a build', {
    timeout: 120_000,
  }, async () => {
    expect((await reload(admin)).json().data).toEqual({
      previous_version: 1,
      dataset_version: 1,
      reloaded: false,
    });
    expect(await t.buildNext('npm-b')).toBe(2);
    const res = await reload(admin);
    expect(res.json().data).toEqual({ previous_version: 1, dataset_version: 2, reloaded: true });
    expect(res.json().meta.dataset_version).toBe(2);
    expect(t.app.services.datasetVersion()).toBe(2);
  });

  it('needs the admin permission', async () => {
    const res = await reload(await t.key({ permissions: ['ip:read'] }));
    expect([res.statusCode, res.json().data.code]).toEqual([403, 'FORBIDDEN']);
  });
});
