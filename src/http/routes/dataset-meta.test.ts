/**
 * meta.dataset_version on the answers that read dataset facts besides the IP and ASN routes
 * (issue #30 item 5): reputation (single, batch, neighbours), warm-up, pool classification and
 * both header analyzer routes name the serving snapshot, follow a reload to the next one, and
 * leave the field out while no snapshot is loaded (their dataset facts were then unknown).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { createIntelTestApp, type IntelTestApp } from '../../../test/helpers/intel-app.ts';
import { nextClientIp } from '../../../test/helpers/reputation-app.ts';

const HEADERS =
  'Received: from mail.example.com (mail.example.com [8.8.8.8]) by mx.example.net with ESMTPS; Mon, 15 Jun 2026 11:59:58 +0000\r\n' +
  'From: Alice <alice@example.com>\r\nTo: bob@example.net\r\nSubject: Hello\r\nDate: Mon, 15 Jun 2026 11:59:57 +0000\r\n';

type Call = { name: string; method: 'GET' | 'POST'; url: string; payload?: unknown; key: boolean };

const CALLS: Call[] = [
  { name: 'reputation', method: 'GET', url: '/v1/email/ip/8.8.8.8/reputation', key: false },
  {
    name: 'reputation batch',
    method: 'POST',
    url: '/v1/email/reputation/batch',
    payload: { ips: ['8.8.8.8', '1.1.1.1'] },
    key: false,
  },
  { name: 'neighbours', method: 'GET', url: '/v1/email/ip/8.8.8.8/neighbors', key: true },
  { name: 'warm-up', method: 'GET', url: '/v1/email/ip/8.8.8.8/warmup', key: true },
  {
    name: 'pool classification',
    method: 'POST',
    url: '/v1/email/pool/classify',
    payload: { ips: ['8.8.8.8'] },
    key: true,
  },
  {
    name: 'header analyzer (public)',
    method: 'POST',
    url: '/v1/public/tools/header-analyzer',
    payload: { headers: HEADERS },
    key: false,
  },
  {
    name: 'header analyzer (keyed)',
    method: 'POST',
    url: '/v1/tools/header-analyzer',
    payload: { headers: HEADERS },
    key: true,
  },
];

async function metaOf(t: TestApp, key: string, call: Call) {
  const res = await t.app.http.inject({
    method: call.method,
    url: call.url,
    remoteAddress: nextClientIp(),
    ...(call.key ? { headers: { 'x-api-key': key } } : {}),
    ...(call.payload ? { payload: call.payload as object } : {}),
  });
  expect(res.statusCode, `${call.name}: ${res.body}`).toBe(200);
  return (res.json() as { meta: Record<string, unknown> }).meta;
}

describe('meta.dataset_version on the answers that read dataset facts', () => {
  let t: (TestApp | IntelTestApp) | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  it('names the serving snapshot on every route and follows a reload', async () => {
    const app = await createIntelTestApp('sqlite');
    t = app;
    const key = await app.key({ permissions: ['email:read', 'admin'], features: ['telemetry_ingest'] });
    for (const call of CALLS)
      expect(await metaOf(app, key, call), call.name).toMatchObject({ dataset_version: 1 });

    expect(await app.buildNext('npm-b')).toBe(2);
    const reload = await app.app.http.inject({
      method: 'POST',
      url: '/v1/admin/datasets/reload',
      headers: { 'x-api-key': key },
    });
    expect(reload.statusCode).toBe(200);
    for (const call of CALLS)
      expect(await metaOf(app, key, call), call.name).toMatchObject({ dataset_version: 2 });
  }, 60_000);

  it('leaves it out while no snapshot is loaded', async () => {
    const app = await createTestApp('sqlite');
    t = app;
    expect(app.app.services.datasetVersion()).toBeNull();
    const key = await app.key({ permissions: ['email:read'], features: ['telemetry_ingest'] });
    for (const call of CALLS)
      expect(await metaOf(app, key, call), call.name).not.toHaveProperty('dataset_version');
  }, 60_000);
});
