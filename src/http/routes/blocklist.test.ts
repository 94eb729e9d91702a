/** The blocklist routes on the real app (spec §2.4, §4, §7; CONTRACT §4), on SQLite and PostgreSQL. */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';

const HOUR = 3_600_000;

describe.each(STORE_KINDS)('blocklist routes on %s', (kind) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function setup() {
    t = await createTestApp(kind, { config: { quotaOverrides: 'enterprise=unlimited' } });
    const admin = await t.key({ permissions: ['admin'] });
    const reader = await t.key({ permissions: ['blocklist:read'] });
    const app = t.app.http;
    const call = async (
      method: 'GET' | 'POST' | 'DELETE',
      url: string,
      key: string | null,
      body?: unknown,
    ) => {
      const res = await app.inject({
        method,
        url,
        headers: {
          ...(key ? { 'x-api-key': key } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      return {
        status: res.statusCode,
        body: res.json() as { data: Record<string, unknown> & { code?: string; error?: string } },
      };
    };
    return { t, admin, reader, call };
  }

  it.skipIf(skipStore(kind))('lists, checks, re-lists and delists through the routes', async () => {
    const { t, admin, reader, call } = await setup();
    const t0 = t.clock();
    const listed = await call('POST', '/v1/admin/blocklist/listings', admin, {
      ip: '2001:DB8:0::0A',
      type: 'phishing',
      reason: 'credential kit',
    });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual({
      ip: '2001:db8::a',
      type: 'phishing',
      reason: 'credential kit',
      return_code: '127.0.0.4',
      listed_at: new Date(t0).toISOString(),
      expires_at: null,
    });

    for (const [url, key] of [
      ['/v1/public/blocklist/ip/2001:db8::a', null],
      ['/v1/blocklist/ip/2001:0db8::000a', reader],
    ] as const) {
      const res = await call('GET', url, key);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        ip: '2001:db8::a',
        listed: true,
        listing: {
          type: 'phishing',
          reason: 'credential kit',
          return_code: '127.0.0.4',
          listed_at: new Date(t0).toISOString(),
          expires_at: null,
        },
      });
    }
    expect((await call('GET', '/v1/public/blocklist/ip/192.0.2.1', null)).body.data).toEqual({
      ip: '192.0.2.1',
      listed: false,
    });

    t.clock.advance(HOUR);
    const expiresAt = new Date(t0 + 3 * HOUR).toISOString();
    const relisted = await call('POST', '/v1/admin/blocklist/listings', admin, {
      ip: '2001:db8::a',
      type: 'malware',
      reason: 'dropper',
      return_code: '127.0.0.20',
      expires_at: expiresAt,
    });
    expect(relisted.body.data).toMatchObject({
      return_code: '127.0.0.20',
      listed_at: new Date(t0).toISOString(),
      expires_at: expiresAt,
    });

    const batch = await call('POST', '/v1/blocklist/check', reader, { ips: ['2001:db8::a', ' 192.0.2.1'] });
    expect(batch.status).toBe(200);
    expect(batch.body.data).toEqual([
      {
        ip: '2001:db8::a',
        listed: true,
        listing: {
          type: 'malware',
          reason: 'dropper',
          return_code: '127.0.0.20',
          listed_at: new Date(t0).toISOString(),
          expires_at: expiresAt,
        },
      },
      { ip: '192.0.2.1', listed: false },
    ]);

    t.clock.advance(HOUR);
    const del = await call('DELETE', '/v1/admin/blocklist/listings/2001:db8::a', admin, {
      reason: 'cleaned',
    });
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ ip: '2001:db8::a', listed: false });
    const again = await call('DELETE', '/v1/admin/blocklist/listings/2001:db8::a', admin);
    expect(again.status).toBe(404);
    expect(again.body.data.code).toBe('NOT_FOUND');

    const recent = await call('GET', '/v1/blocklist/recent', reader);
    expect(recent.status).toBe(200);
    expect(recent.body.data).toEqual({
      count: 3,
      limit: 50,
      offset: 0,
      events: [
        {
          ip: '2001:db8::a',
          action: 'delisted',
          type: 'malware',
          reason: 'cleaned',
          return_code: '127.0.0.20',
          listed_at: new Date(t0).toISOString(),
          delisted_at: new Date(t0 + 2 * HOUR).toISOString(),
          performed_at: new Date(t0 + 2 * HOUR).toISOString(),
        },
        {
          ip: '2001:db8::a',
          action: 'listed',
          type: 'malware',
          reason: 'dropper',
          return_code: '127.0.0.20',
          listed_at: new Date(t0).toISOString(),
          expires_at: expiresAt,
          performed_at: new Date(t0 + HOUR).toISOString(),
        },
        {
          ip: '2001:db8::a',
          action: 'listed',
          type: 'phishing',
          reason: 'credential kit',
          return_code: '127.0.0.4',
          listed_at: new Date(t0).toISOString(),
          expires_at: null,
          performed_at: new Date(t0).toISOString(),
        },
      ],
    });
    const page = await call('GET', '/v1/blocklist/recent?limit=1&offset=1', reader);
    expect(page.body.data).toMatchObject({ count: 1, limit: 1, offset: 1, events: [{ reason: 'dropper' }] });

    expect((await call('GET', '/v1/blocklist/stats', reader)).body.data).toEqual({
      total_active: 0,
      by_type: { spam: 0, malware: 0, phishing: 0 },
      new_listings_24h: 2,
      delistings_24h: 1,
    });
  });

  it.skipIf(skipStore(kind))('expiry leaves checks at once and is recorded once by the worker', async () => {
    const { t, admin, reader, call } = await setup();
    const t0 = t.clock();
    for (const [ip, type] of [
      ['198.51.100.1', 'spam'],
      ['198.51.100.2', 'malware'],
    ] as const) {
      await call('POST', '/v1/admin/blocklist/listings', admin, {
        ip,
        type,
        reason: 'r',
        expires_at: new Date(t0 + HOUR).toISOString(),
      });
    }
    await call('POST', '/v1/admin/blocklist/listings', admin, {
      ip: '198.51.100.3',
      type: 'spam',
      reason: 'r',
    });
    expect((await call('GET', '/v1/blocklist/stats', reader)).body.data).toEqual({
      total_active: 3,
      by_type: { spam: 2, malware: 1, phishing: 0 },
      new_listings_24h: 3,
      delistings_24h: 0,
    });
    t.clock.advance(HOUR);
    expect((await call('GET', '/v1/blocklist/ip/198.51.100.1', reader)).body.data).toEqual({
      ip: '198.51.100.1',
      listed: false,
    });
    expect(t.app.services.listingFor?.('198.51.100.2')).toBeNull();
    expect(t.app.services.listingFor?.('198.51.100.3')).toEqual({ type: 'spam' });
    // Nobody reads the statistics: the worker pass records both expiries, a second one nothing.
    await t.app.blocklistExpiry.runOnce();
    await t.app.blocklistExpiry.runOnce();
    const recent = await call('GET', '/v1/blocklist/recent?limit=100', reader);
    const delisted = (
      recent.body.data.events as { action: string; reason: string; delisted_at: string }[]
    ).filter((e) => e.action === 'delisted');
    expect(delisted).toHaveLength(2);
    for (const e of delisted) {
      expect(e.reason).toBe('expired');
      expect(e.delisted_at).toBe(new Date(t0 + HOUR).toISOString());
    }
    expect((await call('GET', '/v1/blocklist/stats', reader)).body.data).toEqual({
      total_active: 1,
      by_type: { spam: 1, malware: 0, phishing: 0 },
      new_listings_24h: 3,
      delistings_24h: 2,
    });
    t.clock.advance(24 * HOUR);
    expect((await call('GET', '/v1/blocklist/stats', reader)).body.data).toMatchObject({
      total_active: 1,
      new_listings_24h: 0,
      delistings_24h: 0,
    });
  });

  it.skipIf(skipStore(kind))('rejects hostile and out-of-range input with the documented codes', async () => {
    const { admin, reader, call } = await setup();
    const code = async (
      method: 'GET' | 'POST' | 'DELETE',
      url: string,
      key: string | null,
      body?: unknown,
    ) => {
      const res = await call(method, url, key, body);
      return [res.status, res.body.data.code, res.body.data.error];
    };
    expect(await code('GET', '/v1/public/blocklist/ip/999.1.1.1', null)).toEqual([
      400,
      'INVALID_IP',
      'invalid IP address: 999.1.1.1',
    ]);
    expect((await code('GET', '/v1/blocklist/ip/fe80::1%25eth0', reader))[1]).toBe('INVALID_IP');
    expect((await code('GET', `/v1/blocklist/ip/${'1'.repeat(200)}`, reader))[1]).toBe('INVALID_PARAMETER');

    const ips = Array.from({ length: 100 }, (_, i) => `10.0.${i}.1`);
    expect((await call('POST', '/v1/blocklist/check', reader, { ips })).status).toBe(200);
    expect((await code('POST', '/v1/blocklist/check', reader, { ips: [...ips, '10.9.9.9'] }))[1]).toBe(
      'TOO_MANY_IPS',
    );
    expect((await code('POST', '/v1/blocklist/check', reader, { ips: [] }))[1]).toBe('INVALID_BODY');
    expect((await code('POST', '/v1/blocklist/check', reader, { ips: [1234] }))[1]).toBe('INVALID_IP');
    expect((await code('POST', '/v1/blocklist/check', reader, { ips: [{}] }))[1]).toBe('INVALID_BODY');
    expect((await code('POST', '/v1/blocklist/check', reader, {}))[1]).toBe('INVALID_BODY');
    expect((await code('POST', '/v1/blocklist/check', reader, '{"ips":[')).slice(0, 2)).toEqual([
      400,
      'INVALID_BODY',
    ]);
    const bad = await code('POST', '/v1/blocklist/check', reader, { ips: ['1.2.3.4', '1.2.3.04'] });
    expect(bad.slice(0, 2)).toEqual([400, 'INVALID_IP']);
    expect(bad[2]).toContain('1.2.3.04');

    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'offset=-1', 'offset=x']) {
      expect(await code('GET', `/v1/blocklist/recent?${q}`, reader), q).toEqual([
        400,
        'INVALID_PARAMETER',
        expect.stringMatching(/limit|offset/),
      ]);
    }
    expect((await call('GET', '/v1/blocklist/recent?limit=100&offset=0', reader)).status).toBe(200);

    const list = (body: unknown) => code('POST', '/v1/admin/blocklist/listings', admin, body);
    expect((await list({ ip: 'x', type: 'spam', reason: 'r' }))[1]).toBe('INVALID_IP');
    expect((await list({ ip: '192.0.2.1', type: 'virus', reason: 'r' }))[1]).toBe('INVALID_BODY');
    expect((await list({ ip: '192.0.2.1', type: 'spam', reason: '' }))[1]).toBe('INVALID_BODY');
    expect((await list({ ip: '192.0.2.1', type: 'spam', reason: 'a\u0007b' }))[1]).toBe('INVALID_BODY');
    expect((await list({ ip: '192.0.2.1', type: 'spam', reason: 'r'.repeat(201) }))[1]).toBe('INVALID_BODY');
    expect((await list({ ip: '192.0.2.1', type: 'spam', reason: 'r', extra: 1 }))[1]).toBe('INVALID_BODY');
    for (const rc of ['127.0.0.1', '128.0.0.2', '127.0.0.256', '127.0.0.02', '::1']) {
      expect((await list({ ip: '192.0.2.1', type: 'spam', reason: 'r', return_code: rc }))[1], rc).toBe(
        'INVALID_BODY',
      );
    }
    for (const when of ['2020-01-01T00:00:00Z', 'tomorrow', '1767225600000', '2030-13-01T00:00:00Z']) {
      expect((await list({ ip: '192.0.2.1', type: 'spam', reason: 'r', expires_at: when }))[1], when).toBe(
        'INVALID_BODY',
      );
    }
    expect(await list({ ip: '192.0.2.1', type: 'spam', reason: 'r', expires_at: null })).toEqual([
      200,
      undefined,
      undefined,
    ]);
    expect((await code('DELETE', '/v1/admin/blocklist/listings/not-an-ip', admin))[1]).toBe('INVALID_IP');
    expect(
      (await code('DELETE', '/v1/admin/blocklist/listings/192.0.2.1', admin, { reason: { text: 'x' } }))[1],
    ).toBe('INVALID_BODY');
    // Only administrators change the list.
    expect(
      (
        await code('POST', '/v1/admin/blocklist/listings', reader, {
          ip: '192.0.2.9',
          type: 'spam',
          reason: 'r',
        })
      )[1],
    ).toBe('FORBIDDEN');
    expect((await code('DELETE', '/v1/admin/blocklist/listings/192.0.2.1', reader))[1]).toBe('FORBIDDEN');
    expect((await call('GET', '/v1/blocklist/ip/192.0.2.1', reader)).body.data.listed).toBe(true);
    // Nothing above wrote an event except the one valid listing.
    expect((await call('GET', '/v1/blocklist/stats', reader)).body.data).toMatchObject({
      total_active: 1,
      new_listings_24h: 1,
      delistings_24h: 0,
    });
  });
});
