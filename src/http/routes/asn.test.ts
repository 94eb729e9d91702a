/**
 * ASN routes on a real app and store serving the fixture dataset: info with prefixes, search,
 * statistics, the anonymous lookup with asn_reputation, route order, and hostile input.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../../test/helpers/intel-app.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';

type Body = {
  data: Record<string, unknown> & { code?: string; error?: string };
  meta: Record<string, unknown>;
};

describe.each(STORE_KINDS)('ASN routes (%s)', (kind) => {
  let t: IntelTestApp;
  let key: string;
  const get = (url: string, k: string | null = key) =>
    t.app.http.inject({ method: 'GET', url, headers: k ? { 'x-api-key': k } : {} });
  const body = (r: { body: string }) => JSON.parse(r.body) as Body;

  beforeAll(async () => {
    if (skipStore(kind)) return;
    t = await createIntelTestApp(kind);
    key = await t.key({ tier: 'pro', permissions: ['asn:read'] });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.skipIf(skipStore(kind))('GET /v1/asn/:asn with and without prefixes', async () => {
    const r = await get('/v1/asn/15169');
    expect(r.statusCode).toBe(200);
    expect(body(r)).toMatchObject({
      data: { asn: 15169, name: 'Google LLC', country: 'US', rir: 'ARIN' },
      meta: { dataset_version: 1 },
    });
    expect(body(r).data).not.toHaveProperty('prefixes');
    expect(r.headers['x-ratelimit-limit']).toBe('100000');
    const all = body(await get('/v1/asn/AS15169?include_prefixes=true'));
    expect(all.data.prefixes).toEqual([
      { prefix: '8.8.8.0/24', country: 'US', is_datacenter: true, threat_score: 5 },
      { prefix: '2a00:1450::/32', country: 'IE', is_datacenter: true, threat_score: 5 },
    ]);
    expect(all.data.total_prefixes).toBe(2);
    const one = body(await get('/v1/asn/15169?include_prefixes=true&prefix_limit=1'));
    expect(one.data.prefixes).toHaveLength(1);
    expect(one.data.total_prefixes).toBe(2);
  });

  it.skipIf(skipStore(kind))('INVALID_ASN, INVALID_PARAMETER and 404', async () => {
    for (const bad of ['0', '4294967296', 'abc', '-1', '1.5', 'AS', '99999999999', ' ', '%00', '1e3']) {
      const r = await get(`/v1/asn/${encodeURIComponent(bad)}`);
      expect(r.statusCode, bad).toBe(400);
      expect(body(r).data.code, bad).toBe('INVALID_ASN');
    }
    expect(body(await get('/v1/asn/4294967295')).data).toMatchObject({
      code: 'NOT_FOUND',
      error: 'ASN not found',
    });
    const missing = await get('/v1/asn/64496');
    expect(missing.statusCode).toBe(404);
    expect(body(missing).meta.dataset_version).toBe(1);
    for (const q of ['prefix_limit=0', 'prefix_limit=1001', 'prefix_limit=x', 'include_prefixes=maybe']) {
      const r = await get(`/v1/asn/15169?${q}`);
      expect(r.statusCode, q).toBe(400);
      expect(body(r).data.code, q).toBe('INVALID_PARAMETER');
    }
  });

  it.skipIf(skipStore(kind))('GET /v1/asn/search and /v1/asn/stats are not read as ASNs', async () => {
    const s = body(await get('/v1/asn/search?q=google'));
    expect(s.data).toEqual({
      results: [{ asn: 15169, name: 'Google LLC', country: 'US', rir: 'ARIN' }],
      count: 1,
    });
    expect(body(await get('/v1/asn/search?q=AS15169')).data.count).toBe(1);
    const limited = body(await get('/v1/asn/search?q=in&limit=1'));
    expect((limited.data.results as unknown[]).length).toBe(1);
    expect(limited.data.count as number).toBeGreaterThan(1);
    for (const q of ['q=g', 'q=', '', 'q=go&limit=0', 'q=go&limit=101', `q=${'x'.repeat(201)}`, 'q=%20%20']) {
      const r = await get(`/v1/asn/search?${q}`);
      expect(r.statusCode, q).toBe(400);
      expect(body(r).data.code, q).toBe('INVALID_PARAMETER');
    }
    // A name outside ASCII, percent-encoded as UTF-8 in the query.
    expect(body(await get('/v1/asn/search?q=telef%C3%B4nica')).data).toMatchObject({
      count: 1,
      results: [{ asn: 26599, name: 'TELEFÔNICA BRASIL S.A', country: 'BR' }],
    });
    const stats = body(await get('/v1/asn/stats'));
    expect(stats.data).toEqual({
      total_asns: 7,
      by_rir: { ARIN: 3, RIPE: 2, APNIC: 1, LACNIC: 1, AFRINIC: 0 },
    });
    expect((await get('/v1/asn/stats', null)).statusCode).toBe(401);
    const ipOnly = await t.key({ permissions: ['ip:read'] });
    expect((await get('/v1/asn/search?q=google', ipOnly)).statusCode).toBe(403);
  });

  it.skipIf(skipStore(kind))('GET /v1/public/asn/:asn adds asn_reputation, no key', async () => {
    const r = await get('/v1/public/asn/15169', null);
    expect(r.statusCode).toBe(200);
    expect(body(r).data).toMatchObject({
      asn: 15169,
      name: 'Google LLC',
      asn_reputation: {
        uce_level1: false,
        uce_level2: false,
        uce_level3: false,
        provider_drop: false,
        provider_edrop: false,
        sources: [],
        dataset_versions: {},
        last_checked: expect.any(String),
      },
    });
    expect(r.headers['x-ratelimit-limit']).toBe('60');
    expect(body(await get('/v1/public/asn/0', null)).data.code).toBe('INVALID_ASN');
    expect((await get('/v1/public/asn/64496', null)).statusCode).toBe(404);
  });

  it.skipIf(skipStore(kind))('random input never answers 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), async (a, q) => {
        for (const url of [
          `/v1/asn/${encodeURIComponent(a)}`,
          `/v1/public/asn/${encodeURIComponent(a)}`,
          `/v1/asn/search?q=${encodeURIComponent(q)}&limit=${encodeURIComponent(a)}`,
          `/v1/asn/15169?include_prefixes=${encodeURIComponent(q)}&prefix_limit=${encodeURIComponent(a)}`,
        ]) {
          const r = await get(url);
          expect(r.statusCode, url).toBeLessThan(500);
        }
      }),
      { numRuns: 60, seed: 11 },
    );
  });
});
