/**
 * IP lookup routes on a real app and store serving a dataset built from the fixture npm
 * packages: the keyed lookup (headers, cache, 404 meta, threat signals), batch caps, the
 * anonymous extended lookup, myip, reload, and hostile input on every route.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoneServer, type ZoneServer } from '../../../test/helpers/dns-zone-server.ts';
import { createIntelTestApp, type IntelTestApp } from '../../../test/helpers/intel-app.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';

type Body = {
  data: Record<string, unknown> & { code?: string; error?: string };
  meta: Record<string, unknown>;
};

describe.each(STORE_KINDS)('IP routes (%s)', (kind) => {
  let t: IntelTestApp;
  let key: string;
  let adminKey: string;
  const get = (url: string, k: string | null = key, extra: Record<string, string> = {}) =>
    t.app.http.inject({ method: 'GET', url, headers: { ...(k ? { 'x-api-key': k } : {}), ...extra } });
  const body = (r: { body: string }) => JSON.parse(r.body) as Body;

  beforeAll(async () => {
    if (skipStore(kind)) return;
    t = await createIntelTestApp(kind);
    // A limited tier, so the X-RateLimit-* headers are sent (unlimited keys have no limit state).
    key = await t.key({ tier: 'pro', permissions: ['ip:read'] });
    adminKey = await t.key({ permissions: ['admin'] });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.skipIf(skipStore(kind))('GET /v1/ip/8.8.8.8: the answer, headers, MISS then HIT', async () => {
    const first = await get('/v1/ip/8.8.8.8');
    expect(first.statusCode).toBe(200);
    const b = body(first);
    expect(b.data).toMatchObject({
      ip: '8.8.8.8',
      prefix: '8.8.8.0/24',
      asn: 15169,
      asn_name: 'Google LLC',
      country: 'US',
      rir: 'ARIN',
      connection_type: 'datacenter',
      bogon: false,
      netrep: { is_datacenter: true, is_tor_exit: false, cloud_provider: 'Google' },
      threat: { score: 5, level: 'low', explanation: ['+5 datacenter network'] },
    });
    expect(b.meta).toMatchObject({ cache_status: 'MISS', dataset_version: 1 });
    expect(first.headers['x-cache-status']).toBe('MISS');
    expect(first.headers['x-request-id']).toBe(b.meta.request_id);
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      expect(first.headers[h]).toBeDefined();
    const second = await get('/v1/ip/8.8.8.8');
    expect(second.headers['x-cache-status']).toBe('HIT');
    expect(body(second).meta.cache_status).toBe('HIT');
    expect(body(second).data).toEqual(b.data);
    // Another spelling of the same address shares the entry.
    const mapped = await get(`/v1/ip/${encodeURIComponent('::FFFF:8.8.8.8')}`);
    expect(mapped.headers['x-cache-status']).toBe('HIT');
    expect(body(mapped).data.ip).toBe('8.8.8.8');
  });

  it.skipIf(skipStore(kind))('IPv6 and 404 with cache_status and dataset_version', async () => {
    const v6 = await get('/v1/ip/2a00:1450:4001::1');
    expect(body(v6).data).toMatchObject({ asn: 15169, asn_name: 'Google LLC', prefix: '2a00:1450::/32' });
    const missing = await get('/v1/ip/9.9.9.9');
    expect(missing.statusCode).toBe(404);
    expect(body(missing)).toMatchObject({
      data: { code: 'NOT_FOUND', error: 'no data found for IP' },
      meta: { cache_status: 'MISS', dataset_version: 1 },
    });
    const again = await get('/v1/ip/9.9.9.9');
    expect(body(again).meta.cache_status).toBe('HIT');
    expect(again.headers['x-cache-status']).toBe('HIT');
  });

  it.skipIf(skipStore(kind))('private, loopback and reserved addresses answer as bogons', async () => {
    for (const [ip, prefix] of [
      ['10.1.2.3', '10.0.0.0/8'],
      ['127.0.0.1', '127.0.0.0/8'],
      ['192.168.1.1', '192.168.0.0/16'],
      ['::1', '::1/128'],
      ['fe80::1', 'fe80::/10'],
    ]) {
      const r = await get(`/v1/ip/${encodeURIComponent(ip as string)}`);
      expect(r.statusCode, ip).toBe(200);
      expect(body(r).data).toMatchObject({ bogon: true, prefix, asn: null, connection_type: null });
    }
  });

  it.skipIf(skipStore(kind))('odd forms: normalized or 400 INVALID_IP', async () => {
    const ok = await get(`/v1/ip/${encodeURIComponent(' 8.8.8.8 ')}`);
    expect(body(ok).data.ip).toBe('8.8.8.8');
    const upper = await get('/v1/ip/2A00:1450:4001:0:0:0:0:1');
    expect(body(upper).data.ip).toBe('2a00:1450:4001::1');
    for (const bad of [
      '010.8.8.8',
      '8.8.8',
      '256.8.8.8',
      'fe80::1%eth0',
      '[::1]',
      '8.8.8.8:53',
      '8.8.8.8/24',
      '0x8.8.8.8',
      'x'.repeat(90),
      '%00',
      '８.８.８.８',
      "8.8.8.8' OR 1=1",
    ]) {
      const r = await get(`/v1/ip/${encodeURIComponent(bad)}`);
      expect(r.statusCode, bad).toBe(400);
      expect(body(r).data.code, bad).toBe('INVALID_IP');
    }
  });

  it.skipIf(skipStore(kind))(
    'blocklist listings and trap evidence change the threat score at once',
    async () => {
      const ip = '1.0.0.7';
      const before = body(await get(`/v1/ip/${ip}`));
      expect(before.data.threat).toMatchObject({ score: 5 });
      const listed = await t.app.http.inject({
        method: 'POST',
        url: '/v1/admin/blocklist/listings',
        headers: { 'x-api-key': adminKey },
        payload: { ip, type: 'malware', reason: 'test' },
      });
      expect(listed.statusCode).toBe(200);
      const after = await get(`/v1/ip/${ip}`);
      expect(after.headers['x-cache-status']).toBe('MISS');
      expect(body(after).data.threat).toMatchObject({
        score: 65,
        level: 'high',
        explanation: ['+60 active blocklist listing (malware)', '+5 datacenter network'],
      });
      const evidence = await t.app.http.inject({
        method: 'POST',
        url: '/v1/admin/evidence',
        headers: { 'x-api-key': adminKey },
        payload: { events: [{ ip, kind: 'pristine_trap', observed_at: new Date(t.clock()).toISOString() }] },
      });
      expect(body(evidence).data).toMatchObject({ accepted: 1 });
      let trap: Body | null = null;
      for (let k = 0; k < 50; k++) {
        trap = body(await get(`/v1/ip/${ip}`));
        if ((trap.data.threat as { score: number }).score === 85) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(trap?.data.threat).toMatchObject({ score: 85, level: 'critical' });
      expect((trap?.data.threat as { explanation: string[] } | undefined)?.explanation).toContain(
        '+20 pristine spam trap hit in the last 30 days',
      );
      // The batch and header-analyzer enrichment see the same signals.
      const batch = await t.app.http.inject({
        method: 'POST',
        url: '/v1/ip/batch',
        headers: { 'x-api-key': key },
        payload: { ips: [ip] },
      });
      expect((body(batch).data[ip] as { threat: { score: number } }).threat.score).toBe(85);
      expect(t.app.services.enrichIp?.(ip)).toMatchObject({ asn: 13335, threat_score: 85 });
    },
  );

  it.skipIf(skipStore(kind))('POST /v1/ip/batch: map of normalized IPs, null without a record', async () => {
    const r = await t.app.http.inject({
      method: 'POST',
      url: '/v1/ip/batch',
      headers: { 'x-api-key': key },
      payload: { ips: ['8.8.8.8', '::ffff:8.8.8.8', '9.9.9.9', '2A00:1450::5', '10.0.0.1'] },
    });
    expect(r.statusCode).toBe(200);
    const b = body(r);
    expect(Object.keys(b.data).sort()).toEqual(['10.0.0.1', '2a00:1450::5', '8.8.8.8', '9.9.9.9']);
    expect(b.data['9.9.9.9']).toBeNull();
    expect(b.data['8.8.8.8']).toMatchObject({ asn: 15169, netrep: { is_datacenter: true } });
    // The batch subset: no rir, connection_type or bogon.
    expect(b.data['8.8.8.8']).not.toHaveProperty('rir');
    expect(b.meta.dataset_version).toBe(1);
    expect(r.headers['x-cache-status']).toBeUndefined();
    expect(r.headers['x-ratelimit-limit']).toBeDefined();
  });

  it.skipIf(skipStore(kind))('batch caps: tier batch size, 1000, invalid entries, empty', async () => {
    const free = await t.key({ tier: 'free', permissions: ['ip:read'] });
    const post = (k: string, payload: object) =>
      t.app.http.inject({ method: 'POST', url: '/v1/ip/batch', headers: { 'x-api-key': k }, payload });
    const ips = (n: number) => Array.from({ length: n }, (_, i) => `8.8.${Math.floor(i / 256)}.${i % 256}`);
    const ten = await post(free, { ips: ips(10) });
    expect(ten.statusCode).toBe(200);
    const eleven = body(await post(free, { ips: ips(11) }));
    expect(eleven.data).toMatchObject({ code: 'TOO_MANY_IPS' });
    expect(eleven.data.error).toContain('10');
    const enterprise = await t.key({ permissions: ['ip:read'] });
    const big = await post(enterprise, { ips: ips(1001) });
    expect(big.statusCode).toBe(400);
    expect(body(big).data).toMatchObject({ code: 'TOO_MANY_IPS' });
    expect(body(big).data.error).toContain('1000');
    expect((await post(enterprise, { ips: ips(1000) })).statusCode).toBe(200);
    const pro = body(await post(key, { ips: ips(500 + 1) }));
    expect(pro.data).toMatchObject({ code: 'TOO_MANY_IPS', error: expect.stringContaining('500') });
    const invalid = body(await post(key, { ips: ['8.8.8.8', '1.2.3.999'] }));
    expect(invalid.data).toMatchObject({ code: 'INVALID_IP' });
    expect(invalid.data.error).toContain('1.2.3.999');
    // A number in the list is an invalid IP; a lone string where the list belongs (CONTRACT §2:
    // wrong shape) or an object is a malformed body.
    expect(body(await post(key, { ips: [1] })).data.code).toBe('INVALID_IP');
    expect(body(await post(key, { ips: 'x' })).data.code).toBe('INVALID_BODY');
    for (const payload of [{ ips: [] }, {}, { ips: [{}] }, { ips: ['8.8.8.8'], extra: 1 }, [1]]) {
      const r = await post(key, payload);
      expect(r.statusCode, JSON.stringify(payload)).toBe(400);
      expect(body(r).data.code).toBe('INVALID_BODY');
    }
  });

  it.skipIf(skipStore(kind))('keys: 401 without or with a bad key, 403 without ip:read', async () => {
    expect((await get('/v1/ip/8.8.8.8', null)).statusCode).toBe(401);
    expect((await get('/v1/ip/8.8.8.8', 'nrp_wrong')).statusCode).toBe(401);
    const asnOnly = await t.key({ permissions: ['asn:read'] });
    const r = await get('/v1/ip/8.8.8.8', asnOnly);
    expect(r.statusCode).toBe(403);
    expect(body(r).data.error).toContain('ip:read');
  });

  it.skipIf(skipStore(kind))('POST /v1/admin/datasets/reload swaps in the newest snapshot', async () => {
    expect(
      (
        await t.app.http.inject({
          method: 'POST',
          url: '/v1/admin/datasets/reload',
          headers: { 'x-api-key': key },
        })
      ).statusCode,
    ).toBe(403);
    const same = await t.app.http.inject({
      method: 'POST',
      url: '/v1/admin/datasets/reload',
      headers: { 'x-api-key': adminKey },
    });
    expect(body(same).data).toEqual({ previous_version: 1, dataset_version: 1, reloaded: false });
    expect(body(await get('/v1/ip/100.0.0.1')).data).toMatchObject({ asn: 64500, asn_name: 'Old Org' });
    expect(await t.buildNext('npm-b')).toBe(2);
    // Still v1 until the reload.
    expect(t.app.services.datasetVersion()).toBe(1);
    const r = await t.app.http.inject({
      method: 'POST',
      url: '/v1/admin/datasets/reload',
      headers: { 'x-api-key': adminKey },
    });
    expect(body(r).data).toEqual({ previous_version: 1, dataset_version: 2, reloaded: true });
    const after = await get('/v1/ip/100.0.0.1');
    expect(after.headers['x-cache-status']).toBe('MISS');
    expect(body(after)).toMatchObject({
      data: { asn: 64501, asn_name: 'New Org' },
      meta: { dataset_version: 2 },
    });
    const ready = body(await get('/readyz', null));
    expect(ready.data.checks).toContainEqual({ name: 'dataset', ok: true, detail: 'v2' });
    expect(ready.meta.dataset_version).toBe(2);
    const pub = body(await get('/v1/public/ip/100.0.0.1', null));
    expect(pub.data.ownership_timeline).toEqual([
      expect.objectContaining({ change_kind: 'asn', previous_asn: 64500, current_asn: 64501 }),
    ]);
  });
});

describe('public IP routes (sqlite)', () => {
  let t: IntelTestApp;
  let dns: ZoneServer;
  const body = (r: { body: string }) => JSON.parse(r.body) as Body;
  beforeAll(async () => {
    dns = await startZoneServer({
      '8.8.8.8.in-addr.arpa': [{ type: 'PTR', data: 'dns.google.' }],
      '9.8.8.8.in-addr.arpa': [{ type: 'TIMEOUT' }],
    });
    t = await createIntelTestApp('sqlite', {
      config: { trustedProxies: ['127.0.0.1/32'], dnsServers: dns.servers },
    });
  });
  afterAll(async () => {
    await t.close();
    await dns.close();
  });

  it('hostname from PTR over real DNS; a silent resolver costs at most about a second', async () => {
    const named = body(await t.app.http.inject({ method: 'GET', url: '/v1/public/ip/8.8.8.8' }));
    expect(named.data.hostname).toBe('dns.google');
    const started = performance.now();
    const silent = body(await t.app.http.inject({ method: 'GET', url: '/v1/public/ip/8.8.8.9' }));
    expect(performance.now() - started).toBeLessThan(1800);
    expect(silent.data).toMatchObject({ ip: '8.8.8.9', asn: 15169 });
    expect(silent.data).not.toHaveProperty('hostname');
  });

  it('GET /v1/public/ip/:ip: extended fields without a key', async () => {
    const r = await t.app.http.inject({ method: 'GET', url: '/v1/public/ip/8.8.8.8' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['x-ratelimit-limit']).toBe('60');
    const b = body(r);
    expect(b.data).toMatchObject({
      ip: '8.8.8.8',
      asn: 15169,
      organization: 'Google LLC',
      provider: 'Google',
      geo_consensus: { primary_country: 'US', agreement: 1 },
      geo_stability: { change_count: 0, level: 'stable', last_change: null },
      ownership_timeline: [],
      asn_reputation: { provider_drop: false, uce_level3: false },
    });
    expect(b.data.hostname).toBe('dns.google');
    expect(b.meta.dataset_version).toBe(1);
    const bogon = body(await t.app.http.inject({ method: 'GET', url: '/v1/public/ip/10.0.0.1' }));
    expect(bogon.data).toMatchObject({ bogon: true });
    const missing = await t.app.http.inject({ method: 'GET', url: '/v1/public/ip/9.9.9.9' });
    expect(body(missing)).toMatchObject({ data: { code: 'NOT_FOUND' }, meta: { dataset_version: 1 } });
    const bad = await t.app.http.inject({ method: 'GET', url: '/v1/public/ip/1.2.3' });
    expect(body(bad).data.code).toBe('INVALID_IP');
  });

  it('GET /v1/public/myip: the trusted proxy identity, forwarding headers from others ignored', async () => {
    const direct = await t.app.http.inject({
      method: 'GET',
      url: '/v1/public/myip',
      remoteAddress: '8.8.8.8',
      headers: { 'x-forwarded-for': '1.0.0.1' },
    });
    expect(body(direct).data).toEqual({
      ip: '8.8.8.8',
      asn: 15169,
      asn_name: 'Google LLC',
      country: 'US',
      organization: 'Google LLC',
    });
    expect(direct.headers['x-request-id']).toBeDefined();
    expect(direct.headers['x-ratelimit-remaining']).toBeDefined();
    const proxied = await t.app.http.inject({
      method: 'GET',
      url: '/v1/public/myip',
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': '2a00:1450:4001::9' },
    });
    expect(body(proxied).data).toMatchObject({ ip: '2a00:1450:4001::9', asn: 15169 });
  });

  it('random input on every IP route never answers 5xx', async () => {
    const key = await t.key({ permissions: ['ip:read'] });
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60 }), fc.boolean(), async (s, v6) => {
        const text = v6 ? `2a00:${s}` : s;
        for (const url of [
          `/v1/ip/${encodeURIComponent(text)}`,
          `/v1/public/ip/${encodeURIComponent(text)}`,
        ]) {
          const r = await t.app.http.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
          expect(r.statusCode, url).toBeLessThan(500);
        }
        const b = await t.app.http.inject({
          method: 'POST',
          url: '/v1/ip/batch',
          headers: { 'x-api-key': key },
          payload: { ips: [text] },
        });
        expect(b.statusCode).toBeLessThan(500);
      }),
      { numRuns: 150, seed: 3 },
    );
  });
});
