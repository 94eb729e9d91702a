/**
 * The keyed lookup's fast path against the Fastify route it stands in for: the same request
 * over a real socket (the socket front of fast-front.ts) and through inject (always Fastify)
 * must give the same status, body bytes (but the request id and timing) and headers, for
 * answers, bogons, 404s and quota refusals; and whatever the fast path declines (no key, a
 * missing permission, a bad address, odd URL forms, HEAD, a revoked key) is Fastify's answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { STORE_KINDS, skipStore } from '../../test/helpers/stores.ts';

interface Seen {
  status: number;
  body: string;
  headers: Record<string, string>;
}

const SAME_HEADERS = [
  'content-type',
  'x-cache-status',
  'x-ratelimit-limit',
  'x-ratelimit-reset',
  'retry-after',
];

/** The body with the two per-request values blanked, so two responses can be compared as text. */
function stable(body: string): string {
  return body
    .replace(/"processing_time_ms":\d+/, '"processing_time_ms":0')
    .replace(/"request_id":"[0-9a-f-]{36}"/, '"request_id":"-"');
}

describe.each(STORE_KINDS)('fast path of GET /v1/ip/{ip} (%s)', (kind) => {
  let t: IntelTestApp;
  let base: string;
  let proKey: string;
  let unlimitedKey: string;
  let starterKey: string;
  let asnOnlyKey: string;

  const viaSocket = async (path: string, key: string | null, method = 'GET'): Promise<Seen> => {
    const r = await fetch(`${base}${path}`, { method, headers: key ? { 'x-api-key': key } : {} });
    return { status: r.status, body: await r.text(), headers: Object.fromEntries(r.headers) };
  };
  const viaFastify = async (path: string, key: string | null): Promise<Seen> => {
    const r = await t.app.http.inject({ method: 'GET', url: path, headers: key ? { 'x-api-key': key } : {} });
    return {
      status: r.statusCode,
      body: r.body,
      headers: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)])),
    };
  };
  /** Lookups answered by the fast path so far (either transport). */
  const fastCount = async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    let n = 0;
    for (const line of text.split('\n'))
      if (line.startsWith('netrep_http_fast_path_total{')) n += Number(line.split(' ').at(-1));
    return n;
  };
  const expectSame = (fast: Seen, slow: Seen) => {
    expect(fast.status).toBe(slow.status);
    expect(stable(fast.body)).toBe(stable(slow.body));
    for (const h of SAME_HEADERS) expect([h, fast.headers[h]]).toEqual([h, slow.headers[h]]);
    expect(fast.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(fast.body).meta.request_id).toBe(fast.headers['x-request-id']);
    expect(Number(fast.headers['content-length'])).toBe(Buffer.byteLength(fast.body));
  };

  beforeAll(async () => {
    if (skipStore(kind)) return;
    // Keys stay authenticated for the whole test: a key whose cache entry expires (1 s on
    // PostgreSQL) is authenticated again through Fastify, which the fast-path count below would
    // miss on a slow machine.
    t = await createIntelTestApp(kind, { config: { quotaOverrides: 'starter=4' }, authCacheMs: 600_000 });
    base = await t.app.listen();
    proKey = await t.key({ tier: 'pro', permissions: ['ip:read'] });
    unlimitedKey = await t.key({ tier: 'enterprise', permissions: ['admin'] });
    starterKey = await t.key({ tier: 'starter', permissions: ['ip:read'] });
    asnOnlyKey = await t.key({ tier: 'pro', permissions: ['asn:read'] });
    // The first use of a key authenticates through the store (Fastify); it is then cached.
    for (const k of [proKey, unlimitedKey, asnOnlyKey]) await viaSocket('/v1/ip/192.0.2.1', k);
  });
  afterAll(async () => {
    await t?.close();
  });

  const ADDRESSES = [
    '8.8.8.8',
    '1.0.0.1',
    '214.95.0.1',
    '215.0.0.1',
    // An organization name outside ASCII: Content-Length counts bytes, not characters.
    '177.0.0.1',
    '2a00:1450:4001::1',
    '2A00:1450:4001:0:0:0:0:1',
    '::ffff:8.8.8.8',
    '10.1.2.3',
    '127.0.0.1',
    '2001:db8::1',
    'fe80::1',
    '0.0.0.0',
    '255.255.255.255',
    // Unallocated public space: no record, 404 with cache status and version.
    '223.255.255.1',
  ];

  it.skipIf(skipStore(kind))(
    'answers, bogons and 404s: the same bytes and headers as the Fastify route',
    async () => {
      const before = await fastCount();
      for (const key of [proKey, unlimitedKey]) {
        for (const ip of ADDRESSES) {
          const path = `/v1/ip/${ip}`;
          const first = await viaFastify(path, key);
          const fast = await viaSocket(path, key);
          const slow = await viaFastify(path, key);
          expect(first.status, ip).toBe(slow.status);
          expectSame(fast, slow);
        }
      }
      const brasil = await viaSocket('/v1/ip/177.0.0.1', proKey);
      expect(JSON.parse(brasil.body).data.asn_name).toBe('TELEFÔNICA BRASIL S.A');
      // Every socket request was the fast path's.
      expect(await fastCount()).toBe(before + 2 * ADDRESSES.length + 1);
    },
  );

  it.skipIf(skipStore(kind))('the answer: MISS then HIT, limit headers on limited tiers only', async () => {
    const a = await viaSocket('/v1/ip/8.8.8.77', proKey);
    const b = await viaSocket('/v1/ip/8.8.8.77', proKey);
    expect(a.status).toBe(200);
    expect([a.headers['x-cache-status'], b.headers['x-cache-status']]).toEqual(['MISS', 'HIT']);
    expect(JSON.parse(b.body).meta).toMatchObject({ cache_status: 'HIT', dataset_version: 1 });
    expect(Number(b.headers['x-ratelimit-remaining'])).toBe(Number(a.headers['x-ratelimit-remaining']) - 1);
    const unlimited = await viaSocket('/v1/ip/8.8.8.77', unlimitedKey);
    expect(unlimited.headers['x-ratelimit-limit']).toBeUndefined();
    expect(unlimited.headers['keep-alive']).toBe('timeout=72');
  });

  it.skipIf(skipStore(kind))(
    'concurrent answers waiting on the quota check each answer their own address',
    async () => {
      // The address is read in place into one scratch per server: an answer that waits for the
      // quota store must not see the address of a request taken after it.
      const ips = ['8.8.8.8', '1.0.0.1', '2a00:1450:4001::1', '::ffff:1.0.0.2', '10.1.2.3', '185.241.208.9'];
      const seen = await Promise.all(ips.map((ip) => viaSocket(`/v1/ip/${ip}`, proKey)));
      const expected = ['8.8.8.8', '1.0.0.1', '2a00:1450:4001::1', '1.0.0.2', '10.1.2.3', '185.241.208.9'];
      expect(seen.map((s) => JSON.parse(s.body).data.ip)).toEqual(expected);
      for (const s of seen) expect(s.headers['x-ratelimit-remaining']).toBeDefined();
    },
  );

  it.skipIf(skipStore(kind))(
    'the daily quota: counted on both paths, 429 past it as on the route',
    async () => {
      await viaSocket('/v1/ip/8.8.8.8', starterKey); // 1: authenticates through Fastify, then cached
      const second = await viaSocket('/v1/ip/8.8.8.8', starterKey); // 2: fast
      expect(second.headers['x-ratelimit-remaining']).toBe('2');
      expect((await viaFastify('/v1/ip/8.8.8.8', starterKey)).headers['x-ratelimit-remaining']).toBe('1');
      expect((await viaSocket('/v1/ip/8.8.8.8', starterKey)).headers['x-ratelimit-remaining']).toBe('0');
      const fast = await viaSocket('/v1/ip/8.8.8.8', starterKey);
      const slow = await viaFastify('/v1/ip/8.8.8.8', starterKey);
      expect(fast.status).toBe(429);
      expect(JSON.parse(fast.body).data.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(Number(fast.headers['retry-after'])).toBeGreaterThan(0);
      expectSame(fast, slow);
    },
  );

  it.skipIf(skipStore(kind))('what the fast path declines gets the Fastify route answer', async () => {
    const cases: [string, string | null, number, string | undefined][] = [
      ['/v1/ip/8.8.8.8', null, 401, 'UNAUTHORIZED'],
      ['/v1/ip/8.8.8.8', 'nrp_notakey', 401, 'UNAUTHORIZED'],
      ['/v1/ip/8.8.8.8', asnOnlyKey, 403, 'FORBIDDEN'],
      ['/v1/ip/1.2.3', proKey, 400, 'INVALID_IP'],
      ['/v1/ip/1.2.3.4.5', proKey, 400, 'INVALID_IP'],
      ['/v1/ip/batch', proKey, 400, 'INVALID_IP'],
      ['/v1/ip/fe80::1%25eth0', proKey, 400, 'INVALID_IP'],
      ['/v1/ip/%38.8.8.8', proKey, 200, undefined],
      ['/v1/ip/8.8.8.8?pretty=1', proKey, 200, undefined],
      ['/v1/ip/', proKey, 400, 'INVALID_IP'],
      [`/v1/ip/${'1'.repeat(101)}`, proKey, 400, 'INVALID_PARAMETER'],
    ];
    for (const [path, key, status, code] of cases) {
      const fast = await viaSocket(path, key);
      expect([path, fast.status]).toEqual([path, status]);
      if (code) expect([path, JSON.parse(fast.body).data.code]).toEqual([path, code]);
      const slow = await viaFastify(path, key);
      expect(stable(fast.body).replace(/"cache_status":"(HIT|MISS)"/, '')).toBe(
        stable(slow.body).replace(/"cache_status":"(HIT|MISS)"/, ''),
      );
    }
    const head = await viaSocket('/v1/ip/8.8.8.8', proKey, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['x-cache-status']).toBeDefined();
  });

  it.skipIf(skipStore(kind))(
    'a revoked key is refused at once, metrics and usage count fast answers',
    async () => {
      const key = await t.key({ tier: 'pro', permissions: ['ip:read'] });
      const info = (await t.app.services.accounts.listKeys()).find((k) => key.startsWith(k.prefix));
      if (!info) throw new Error('key not listed');
      for (let i = 0; i < 5; i++) expect((await viaSocket('/v1/ip/185.241.208.1', key)).status).toBe(200);
      const usage = await t.app.services.accounts.usage(info.id, 1);
      expect(usage.at(-1)?.requests).toBe(5);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      const line = metrics
        .split('\n')
        .find((l) =>
          l.startsWith('netrep_http_requests_total{method="GET",route="/v1/ip/:ip",status="200"}'),
        );
      expect(Number(line?.split(' ').at(-1))).toBeGreaterThanOrEqual(5);
      await t.app.services.accounts.revokeKey(info.id);
      const refused = await viaSocket('/v1/ip/185.241.208.1', key);
      expect(refused.status).toBe(401);
    },
  );
});
