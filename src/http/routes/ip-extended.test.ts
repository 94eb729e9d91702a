/**
 * Keyed lookups with the extended fields (issue 36 item 5): `?extended=true` on GET /v1/ip/{ip}
 * and POST /v1/ip/batch answers what GET /v1/public/ip/{ip} gives anyone, one request of the
 * key's daily quota; a bad value is 400 INVALID_PARAMETER; plain lookups keep the fast path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoneServer, type ZoneServer } from '../../../test/helpers/dns-zone-server.ts';
import { createIntelTestApp, type IntelTestApp } from '../../../test/helpers/intel-app.ts';

type Body = { data: Record<string, unknown> & { code?: string }; meta: Record<string, unknown> };

const EXTENDED_FIELDS = [
  'organization',
  'provider',
  'hostname',
  'geo_consensus',
  'asn_reputation',
  'provenance',
];

describe('keyed lookups with extended=true (sqlite)', () => {
  let t: IntelTestApp;
  let dns: ZoneServer;
  let key: string;
  let base: string;
  const body = (r: { body: string }) => JSON.parse(r.body) as Body;
  const get = (url: string) => t.app.http.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
  const batch = (query: string, ips: string[]) =>
    t.app.http.inject({
      method: 'POST',
      url: `/v1/ip/batch${query}`,
      headers: { 'x-api-key': key },
      payload: { ips },
    });
  const remaining = (r: { headers: Record<string, unknown> }) => Number(r.headers['x-ratelimit-remaining']);

  beforeAll(async () => {
    dns = await startZoneServer({ '8.8.8.8.in-addr.arpa': [{ type: 'PTR', data: 'dns.google.' }] });
    t = await createIntelTestApp('sqlite', { config: { dnsServers: dns.servers } });
    key = await t.key({ tier: 'pro', permissions: ['ip:read'] });
    base = await t.app.listen();
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  it('GET /v1/ip/{ip}?extended=true answers the public lookup fields, one request of the quota', async () => {
    const plain = await get('/v1/ip/8.8.8.8');
    const extended = await get('/v1/ip/8.8.8.8?extended=true');
    expect(extended.statusCode).toBe(200);
    expect(remaining(extended)).toBe(remaining(plain) - 1);
    const data = body(extended).data;
    for (const field of EXTENDED_FIELDS) expect(data, field).toHaveProperty(field);
    expect(data).toMatchObject({ ...body(plain).data, organization: 'Google LLC', hostname: 'dns.google' });
    const pub = body(await t.app.http.inject({ method: 'GET', url: '/v1/public/ip/8.8.8.8' })).data;
    expect(data).toEqual(pub);
    expect(body(extended).meta).toMatchObject({ dataset_version: 1, cache_status: 'MISS' });
    expect(body(await get('/v1/ip/8.8.8.8?extended=false')).data).toEqual(body(plain).data);
  });

  it('a value other than true or false is 400 INVALID_PARAMETER naming the parameter', async () => {
    for (const value of ['yes', '2', '']) {
      const r = await get(`/v1/ip/8.8.8.8?extended=${value}`);
      expect(r.statusCode, value).toBe(400);
      expect(body(r).data.code).toBe('INVALID_PARAMETER');
      expect(body(r).data.error).toContain('extended');
      const b = await batch(`?extended=${value}`, ['8.8.8.8']);
      expect(body(b).data.code, value).toBe('INVALID_PARAMETER');
    }
  });

  it('404 and bogons answer as the public lookup does', async () => {
    const missing = await get('/v1/ip/9.9.9.9?extended=true');
    expect(missing.statusCode).toBe(404);
    expect(body(missing)).toMatchObject({ data: { code: 'NOT_FOUND' }, meta: { dataset_version: 1 } });
    expect(body(await get('/v1/ip/10.0.0.1?extended=true')).data).toMatchObject({ bogon: true });
  });

  it('POST /v1/ip/batch?extended=true: each answer is the extended one, in the order asked, one request', async () => {
    const ips = ['8.8.8.8', '10.0.0.1', '9.9.9.9', '8.8.8.8', '1.1.1.1'];
    const plain = await batch('', ips);
    const extended = await batch('?extended=true', ips);
    expect(extended.statusCode).toBe(200);
    expect(remaining(extended)).toBe(remaining(plain) - 1);
    const data = body(extended).data as Record<string, Record<string, unknown> | null>;
    expect(Object.keys(data)).toEqual(Object.keys(body(plain).data));
    const pub = body(await t.app.http.inject({ method: 'GET', url: '/v1/public/ip/8.8.8.8' })).data;
    expect(data['8.8.8.8']).toEqual(pub);
    expect(data['9.9.9.9']).toBeNull();
    expect(data['10.0.0.1']).toMatchObject({ bogon: true });
    // The plain batch answer keeps its subset of fields.
    expect(Object.keys((body(plain).data as Record<string, object>)['8.8.8.8'] ?? {})).toEqual([
      'ip',
      'prefix',
      'asn',
      'asn_name',
      'country',
      'netrep',
      'threat',
    ]);
  });

  it('over the socket: the plain form takes the fast path, the extended form the framework', async () => {
    const fastCount = async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      return text
        .split('\n')
        .filter((l) => l.startsWith('netrep_http_fast_path_total{'))
        .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
    };
    const ask = (path: string) => fetch(`${base}${path}`, { headers: { 'x-api-key': key } });
    const before = await fastCount();
    const plain = await ask('/v1/ip/8.8.8.8');
    expect(plain.status).toBe(200);
    const afterPlain = await fastCount();
    expect(afterPlain).toBeGreaterThan(before);
    const extended = await ask('/v1/ip/8.8.8.8?extended=true');
    expect(((await extended.json()) as Body).data.hostname).toBe('dns.google');
    expect(await fastCount()).toBe(afterPlain);
  });
});
