import crypto from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { probeBackends } from '../helpers/backends.ts';
import { createTestStore, STORE_KINDS, type StoreKind, skipStore } from '../helpers/stores.ts';
import { probeRoutes } from './probe-routes.ts';

function expectEnvelopeError(res: { statusCode: number; json(): unknown }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  const body = res.json() as {
    data: { error: string; code: string };
    meta: { processing_time_ms: number; request_id: string };
  };
  expect(body.data.code).toBe(code);
  expect(typeof body.data.error).toBe('string');
  expect(body.data.error.length).toBeGreaterThan(0);
  expect(Number.isInteger(body.meta.processing_time_ms)).toBe(true);
  expect(body.meta.request_id).toMatch(/^[0-9a-f-]{36}$/);
  return body;
}

const backends = await probeBackends();
const VARIANTS = STORE_KINDS.flatMap((store) => [
  { store, redis: false, name: `${store} + memory limits` },
  { store, redis: true, name: `${store} + Redis limits` },
]);

function skipVariant(v: { store: StoreKind; redis: boolean }): boolean {
  if (v.redis && !backends.redis) {
    process.stdout.write(`[skip] Redis suites skipped: ${backends.redisReason}\n`);
    return true;
  }
  return skipStore(v.store);
}

describe.each(VARIANTS)('HTTP foundation on $name', (variant) => {
  const kind = variant.store;
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  const start = async (config = {}) => {
    t = await createTestApp(kind, { routes: [probeRoutes], config, redis: variant.redis });
    return t;
  };
  // The tests that need no settings of their own share one app per variant (a store migrated and
  // an app built once, not four times: #33 item 5); each makes its keys under a user of its own
  // and uses client addresses no other test uses.
  let shared: TestApp | undefined;
  afterAll(async () => {
    await shared?.close();
  });
  const startShared = async () => {
    shared ??= await createTestApp(kind, { routes: [probeRoutes], redis: variant.redis });
    return { ...shared, owner: await shared.user() };
  };

  it.skipIf(skipVariant(variant))(
    'authentication: missing, malformed, unknown, revoked keys get 401',
    async () => {
      const { app, key, owner } = await startShared();
      const k = await key({ ownerId: owner });
      expectEnvelopeError(await app.http.inject({ url: '/v1/probe/ip' }), 401, 'UNAUTHORIZED');
      expectEnvelopeError(
        await app.http.inject({ url: '/v1/probe/ip', headers: { 'x-api-key': 'garbage' } }),
        401,
        'UNAUTHORIZED',
      );
      expectEnvelopeError(
        await app.http.inject({ url: '/v1/probe/ip', headers: { 'x-api-key': `nrp_${'a'.repeat(40)}` } }),
        401,
        'UNAUTHORIZED',
      );
      // Authorization is not used (spec §5.1).
      expectEnvelopeError(
        await app.http.inject({ url: '/v1/probe/ip', headers: { authorization: `Bearer ${k}` } }),
        401,
        'UNAUTHORIZED',
      );
      const ok = await app.http.inject({ url: '/v1/probe/ip', headers: { 'x-api-key': k } });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({
        data: { ok: true },
        meta: { request_id: ok.headers['x-request-id'] },
      });
      const id = (await app.services.accounts.listKeys({ ownerId: owner }))[0]!.id;
      await app.services.accounts.revokeKey(id);
      expectEnvelopeError(
        await app.http.inject({ url: '/v1/probe/ip', headers: { 'x-api-key': k } }),
        401,
        'UNAUTHORIZED',
      );
      expectEnvelopeError(await app.http.inject({ url: '/v1/probe/auth-required' }), 401, 'AUTH_REQUIRED');
    },
  );

  it.skipIf(skipVariant(variant))('permissions and features: 403 naming what is missing', async () => {
    const { app, key, owner } = await startShared();
    const noIp = await key({ ownerId: owner, permissions: ['email:read'] });
    const b = expectEnvelopeError(
      await app.http.inject({ url: '/v1/probe/ip', headers: { 'x-api-key': noIp } }),
      403,
      'FORBIDDEN',
    );
    expect(b.data.error).toContain('ip:read');
    const f = expectEnvelopeError(
      await app.http.inject({ url: '/v1/probe/feature', headers: { 'x-api-key': noIp } }),
      403,
      'FORBIDDEN',
    );
    expect(f.data.error).toContain('telemetry_ingest');
    const withFeature = await key({
      ownerId: owner,
      permissions: ['email:read'],
      features: ['telemetry_ingest'],
    });
    expect(
      (await app.http.inject({ url: '/v1/probe/feature', headers: { 'x-api-key': withFeature } })).statusCode,
    ).toBe(200);
    // The admin route toggles the feature; a non-admin key cannot.
    const admin = await key({ ownerId: owner, permissions: ['admin'] });
    const id = (await app.services.accounts.listKeys({ ownerId: owner })).find(
      (k) => k.features.length === 0 && k.permissions.includes('email:read'),
    )!.id;
    expectEnvelopeError(
      await app.http.inject({
        method: 'POST',
        url: `/v1/admin/keys/${id}/features`,
        headers: { 'x-api-key': noIp },
        payload: { telemetry_ingest: true },
      }),
      403,
      'FORBIDDEN',
    );
    const set = await app.http.inject({
      method: 'POST',
      url: `/v1/admin/keys/${id}/features`,
      headers: { 'x-api-key': admin },
      payload: { telemetry_ingest: true },
    });
    expect(set.statusCode).toBe(200);
    expect(set.json().data.features).toEqual(['telemetry_ingest']);
    expect(
      (await app.http.inject({ url: '/v1/probe/feature', headers: { 'x-api-key': noIp } })).statusCode,
    ).toBe(200);
    expectEnvelopeError(
      await app.http.inject({
        method: 'POST',
        url: '/v1/admin/keys/99999/features',
        headers: { 'x-api-key': admin },
        payload: { telemetry_ingest: true },
      }),
      404,
      'NOT_FOUND',
    );
    expectEnvelopeError(
      await app.http.inject({
        method: 'POST',
        url: '/v1/admin/keys/abc/features',
        headers: { 'x-api-key': admin },
        payload: { telemetry_ingest: true },
      }),
      400,
      'INVALID_PARAMETER',
    );
  });

  it.skipIf(skipVariant(variant))(
    'error envelope: malformed JSON, wrong content type, oversize, unknown route and method',
    async () => {
      const { app, key } = await startShared();
      const k = await key();
      const h = { 'x-api-key': k, 'content-type': 'application/json' };
      expectEnvelopeError(
        await app.http.inject({ method: 'POST', url: '/v1/probe/batch', headers: h, payload: '{"ips": [' }),
        400,
        'INVALID_BODY',
      );
      expectEnvelopeError(
        await app.http.inject({ method: 'POST', url: '/v1/probe/batch', headers: h, payload: '' }),
        400,
        'INVALID_BODY',
      );
      expectEnvelopeError(
        await app.http.inject({ method: 'POST', url: '/v1/probe/batch', headers: h, payload: '[]' }),
        400,
        'INVALID_BODY',
      );
      expectEnvelopeError(
        await app.http.inject({ method: 'POST', url: '/v1/probe/batch', headers: h, payload: '{"ips": []}' }),
        400,
        'INVALID_BODY',
      );
      expectEnvelopeError(
        await app.http.inject({
          method: 'POST',
          url: '/v1/probe/batch',
          headers: { 'x-api-key': k, 'content-type': 'text/plain' },
          payload: '{"ips":["1.1.1.1"]}',
        }),
        400,
        'INVALID_BODY',
      );
      const many = { ips: Array.from({ length: 101 }, (_, i) => `10.0.0.${i % 250}`) };
      expectEnvelopeError(
        await app.http.inject({ method: 'POST', url: '/v1/probe/batch', headers: h, payload: many }),
        400,
        'TOO_MANY_IPS',
      );
      expectEnvelopeError(
        await app.http.inject({
          method: 'POST',
          url: '/v1/probe/batch?limit=0',
          headers: h,
          payload: { ips: ['1.1.1.1'] },
        }),
        400,
        'INVALID_PARAMETER',
      );
      expectEnvelopeError(
        await app.http.inject({
          method: 'POST',
          url: '/v1/probe/small',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ x: 'y'.repeat(5000) }),
        }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
      expectEnvelopeError(await app.http.inject({ url: '/v1/nothing-here' }), 404, 'NOT_FOUND');
      // Router-level errors get the envelope too.
      expectEnvelopeError(
        await app.http.inject({ url: `/v1/public/blocklist/ip/${'a'.repeat(1500)}` }),
        400,
        'INVALID_PARAMETER',
      );
      expectEnvelopeError(
        await app.http.inject({ url: '/v1/public/blocklist/ip/%E0%A4%A' }),
        400,
        'INVALID_PARAMETER',
      );
      const wrong = expectEnvelopeError(
        await app.http.inject({ method: 'DELETE', url: '/v1/probe/ip' }),
        405,
        'METHOD_NOT_ALLOWED',
      );
      expect(wrong.data.error).toContain('GET');
      // A bug is a 500 INTERNAL without the stack or the cause's text.
      const boom = await app.http.inject({ url: '/v1/probe/boom' });
      expectEnvelopeError(boom, 500, 'INTERNAL');
      expect(boom.body).not.toContain('secret');
      expect(boom.body).not.toContain('/srv/');
    },
  );

  it.skipIf(skipVariant(variant))(
    'daily quota: the 11th request of a 10/day key gets 429 with headers and Retry-After',
    async () => {
      const { app, key, clock } = await start({ quotaOverrides: 'free=10' });
      const k = await key({ tier: 'free' });
      for (let i = 1; i <= 10; i++) {
        const r = await app.http.inject({ url: '/v1/probe/ip', headers: { 'x-api-key': k } });
        expect(r.statusCode).toBe(200);
        expect(r.headers['x-ratelimit-limit']).toBe('10');
        expect(r.headers['x-ratelimit-remaining']).toBe(String(10 - i));
        expect(Number(r.headers['x-ratelimit-reset'])).toBe(Date.parse('2026-06-16T00:00:00Z') / 1000);
      }
      const over = await app.http.inject({ url: '/v1/probe/ip', headers: { 'x-api-key': k } });
      expectEnvelopeError(over, 429, 'RATE_LIMIT_EXCEEDED');
      expect(over.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(over.headers['retry-after'])).toBe(12 * 3600);
      // A new UTC day has a fresh quota.
      clock.advance(12 * 3600 * 1000);
      expect((await app.http.inject({ url: '/v1/probe/ip', headers: { 'x-api-key': k } })).statusCode).toBe(
        200,
      );
    },
  );

  it.skipIf(skipVariant(variant))('quotas survive a restart', async () => {
    const handle = await createTestStore(kind);
    const limitPrefix = `restart-${crypto.randomBytes(4).toString('hex')}`;
    try {
      const first = await createTestApp(kind, {
        routes: [probeRoutes],
        handle,
        limitPrefix,
        redis: variant.redis,
        config: { quotaOverrides: 'free=3' },
      });
      const k = await first.key({ tier: 'free' });
      for (let i = 0; i < 3; i++) {
        expect(
          (await first.app.http.inject({ url: '/v1/probe/ip', headers: { 'x-api-key': k } })).statusCode,
        ).toBe(200);
      }
      await first.close();
      const second = await createTestApp(kind, {
        routes: [probeRoutes],
        handle,
        limitPrefix,
        redis: variant.redis,
        config: { quotaOverrides: 'free=3' },
      });
      expectEnvelopeError(
        await second.app.http.inject({ url: '/v1/probe/ip', headers: { 'x-api-key': k } }),
        429,
        'RATE_LIMIT_EXCEEDED',
      );
      await second.close();
    } finally {
      await handle.cleanup();
    }
  });

  it.skipIf(skipVariant(variant))(
    'anonymous limit: 60/min per client IP shared across /v1/public/*',
    async () => {
      const { app } = await startShared();
      for (let i = 0; i < 60; i++) {
        const r = await app.http.inject({
          url: i % 2 ? '/v1/public/probe' : '/v1/public/probe2',
          remoteAddress: '203.0.113.7',
        });
        expect(r.statusCode).toBe(200);
        expect(r.headers['x-ratelimit-limit']).toBe('60');
      }
      const over = await app.http.inject({ url: '/v1/public/probe', remoteAddress: '203.0.113.7' });
      expectEnvelopeError(over, 429, 'RATE_LIMIT_EXCEEDED');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      // Another client is unaffected; a forwarded header from an untrusted peer is ignored.
      expect(
        (await app.http.inject({ url: '/v1/public/probe', remoteAddress: '203.0.113.8' })).statusCode,
      ).toBe(200);
      const spoof = await app.http.inject({
        url: '/v1/public/probe',
        remoteAddress: '203.0.113.7',
        headers: { 'x-forwarded-for': '198.51.100.1' },
      });
      expect(spoof.statusCode).toBe(429);
      // The reputation bucket is separate.
      expect(
        (
          await app.http.inject({
            method: 'POST',
            url: '/v1/probe/small',
            remoteAddress: '203.0.113.7',
            payload: {},
          })
        ).statusCode,
      ).toBe(200);
    },
  );

  it.skipIf(skipVariant(variant))('anonymous limit behind a trusted proxy uses X-Forwarded-For', async () => {
    const { app } = await start({ trustedProxies: ['10.0.0.0/8'] });
    for (let i = 0; i < 60; i++) {
      const r = await app.http.inject({
        url: '/v1/public/probe',
        remoteAddress: '10.1.1.1',
        headers: { 'x-forwarded-for': '198.51.100.1' },
      });
      expect(r.statusCode).toBe(200);
    }
    expect(
      (
        await app.http.inject({
          url: '/v1/public/probe',
          remoteAddress: '10.1.1.1',
          headers: { 'x-forwarded-for': '198.51.100.1' },
        })
      ).statusCode,
    ).toBe(429);
    // Same proxy, another client behind it.
    expect(
      (
        await app.http.inject({
          url: '/v1/public/probe',
          remoteAddress: '10.1.1.1',
          headers: { 'x-forwarded-for': '198.51.100.2' },
        })
      ).statusCode,
    ).toBe(200);
    // A client claiming to be someone else through a forged header before the proxy's entry.
    expect(
      (
        await app.http.inject({
          url: '/v1/public/probe',
          remoteAddress: '10.1.1.1',
          headers: { 'x-forwarded-for': '198.51.100.2, 198.51.100.1' },
        })
      ).statusCode,
    ).toBe(429);
  });
});
