/**
 * Webhook routes on both stores with private delivery off: the secret shown once, owners kept
 * apart, the SSRF guard at creation, hostile input. No delivery runs here (workers off), so no
 * packet leaves the machine; deliveries are tested in src/webhooks/delivery.test.ts.
 */
import '../../../test/helpers/dns-guard.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { startZoneServer, type ZoneServer } from '../../../test/helpers/dns-zone-server.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import { MAX_WEBHOOKS } from '../../webhooks/index.ts';

let zone: ZoneServer;
beforeAll(async () => {
  zone = await startZoneServer({
    'hooks.example.test': [{ type: 'A', data: '93.184.216.34' }],
    'loop.example.test': [{ type: 'A', data: '127.0.0.1' }],
  });
});
afterAll(async () => {
  await zone.close();
});

describe.each(STORE_KINDS)('webhooks (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    if (skip) return;
    t = await createTestApp(kind, { config: { dnsServers: zone.servers, workers: false } });
    key = await t.key({ permissions: ['ip:read'] });
  });
  afterAll(async () => {
    await t?.close();
  });

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, k = key) =>
    t.app.http.inject({
      method,
      url,
      headers: { 'x-api-key': k },
      ...(body === undefined ? {} : { payload: body as object }),
    });

  it.skipIf(skip)('returns the secret once; the list never shows it; delete removes the hook', async () => {
    const created = await call('POST', '/v1/webhooks', { url: 'https://hooks.example.test/netrep' });
    expect(created.statusCode).toBe(200);
    const hook = created.json().data;
    expect(hook).toMatchObject({
      url: 'https://hooks.example.test/netrep',
      created_at: '2026-06-15T12:00:00.000Z',
    });
    expect(hook.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const own = await call('POST', '/v1/webhooks', {
      url: 'https://hooks.example.test/b',
      secret: 'my-own-secret-0123456789',
    });
    expect(own.json().data.secret).toBe('my-own-secret-0123456789');
    const list = await call('GET', '/v1/webhooks');
    expect(list.body).not.toContain(hook.secret);
    expect(list.body).not.toContain('my-own-secret');
    expect(list.json().data.webhooks.map((h: { id: number }) => h.id)).toEqual([hook.id, own.json().data.id]);
    expect((await call('GET', `/v1/webhooks/${hook.id}/deliveries`)).json().data).toEqual({
      deliveries: [],
      limit: 50,
      offset: 0,
    });
    const test = await call('POST', `/v1/webhooks/${hook.id}/test`);
    expect(test.statusCode).toBe(200);
    expect(test.json().data.event_id).toMatch(/^[0-9a-f-]{36}$/);
    const del = await call('DELETE', `/v1/webhooks/${hook.id}`);
    expect([del.statusCode, del.json().data]).toEqual([200, { id: hook.id, deleted: true }]);
    expect((await call('DELETE', `/v1/webhooks/${hook.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/v1/webhooks/${own.json().data.id}`)).statusCode).toBe(200);
  });

  it.skipIf(skip)("answers 404 for another owner's hook on every route", async () => {
    const id = (await call('POST', '/v1/webhooks', { url: 'https://hooks.example.test/c' })).json().data.id;
    const other = await t.key({ ownerId: await t.user(), permissions: ['ip:read'] });
    for (const [method, url] of [
      ['DELETE', `/v1/webhooks/${id}`],
      ['GET', `/v1/webhooks/${id}/deliveries`],
      ['POST', `/v1/webhooks/${id}/test`],
    ] as const) {
      const r = await call(method, url, undefined, other);
      expect([r.statusCode, r.json().data.code], `${method} ${url}`).toEqual([404, 'NOT_FOUND']);
    }
    expect((await call('GET', '/v1/webhooks', undefined, other)).json().data.webhooks).toEqual([]);
    expect((await call('DELETE', `/v1/webhooks/${id}`)).statusCode).toBe(200);
  });

  it.skipIf(skip)(
    'refuses loopback, private, link-local and mapped targets at creation with 400',
    async () => {
      for (const url of [
        'http://127.0.0.1/hook',
        'http://10.0.0.1/hook',
        'http://[::1]/hook',
        'http://[::ffff:127.0.0.1]/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://loop.example.test/hook',
        'http://localhost:8080/',
        'http://unknown.example.test/',
      ]) {
        const r = await call('POST', '/v1/webhooks', { url });
        expect([r.statusCode, r.json().data.code], url).toEqual([400, 'INVALID_BODY']);
      }
      expect((await call('GET', '/v1/webhooks')).json().data.webhooks).toEqual([]);
    },
  );

  it.skipIf(skip)('answers 4xx for hostile input, never a 5xx', async () => {
    for (const body of [
      {},
      { url: 42 },
      { url: 'ftp://hooks.example.test/' },
      { url: 'http://user:pass@hooks.example.test/' },
      { url: 'not a url' },
      { url: 'https://hooks.example.test/', secret: 'short' },
      { url: 'https://hooks.example.test/', secret: 'has spaces in it 0123456789' },
      { url: 'https://hooks.example.test/', extra: true },
      { url: `https://hooks.example.test/${'x'.repeat(3000)}` },
      [],
    ]) {
      const r = await call('POST', '/v1/webhooks', body);
      expect([r.statusCode, r.json().data.code], JSON.stringify(body).slice(0, 80)).toEqual([
        400,
        'INVALID_BODY',
      ]);
    }
    for (const id of ['abc', '0', '-1', '1.5', '9'.repeat(20)]) {
      const r = await call('GET', `/v1/webhooks/${id}/deliveries`);
      expect(r.statusCode, id).toBe(400);
    }
    expect((await call('GET', '/v1/webhooks/999999/deliveries')).statusCode).toBe(404);
    expect((await call('GET', '/v1/webhooks/1/deliveries?limit=0')).statusCode).toBe(400);
    expect((await call('POST', '/v1/webhooks/1/test', { extra: 1 })).statusCode).toBe(400);
    expect((await t.app.http.inject({ url: '/v1/webhooks' })).statusCode).toBe(401);
  });

  it.skipIf(skip)(`caps an account at ${MAX_WEBHOOKS} webhooks`, async () => {
    const k = await t.key({ ownerId: await t.user(), permissions: ['ip:read'] });
    for (let i = 0; i < MAX_WEBHOOKS; i++)
      expect(
        (await call('POST', '/v1/webhooks', { url: `https://hooks.example.test/${i}` }, k)).statusCode,
      ).toBe(200);
    const over = await call('POST', '/v1/webhooks', { url: 'https://hooks.example.test/x' }, k);
    expect([over.statusCode, over.json().data.error]).toEqual([
      400,
      `webhook limit reached: at most ${MAX_WEBHOOKS} per account`,
    ]);
  });
});
