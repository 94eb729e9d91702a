/**
 * The email domain routes through the real app, against a real authoritative DNS server on
 * 127.0.0.1 (NETREP_DNS_SERVERS points at it): grades, the per-instance cache headers across
 * MISS, HIT and BYPASS with the clock moved, spec rule 4 selectors, the 30/min key bucket,
 * invalid and missing domains, SPF check_host, and the 5 s deadline with a silent resolver.
 */
import { generateKeyPairSync } from 'node:crypto';
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../../test/helpers/dns-guard.ts';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import {
  startZoneServer,
  type Zone,
  type ZoneRecord,
  type ZoneServer,
} from '../../../test/helpers/dns-zone-server.ts';

const txt = (data: string | string[]): ZoneRecord => ({ type: 'TXT', data });
const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const KEY_2048 = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');

function zone(dmarcPolicy = 'reject'): Zone {
  return {
    'strong.com': [
      { type: 'MX', data: { preference: 10, exchange: 'mx.strong.com' } },
      txt('v=spf1 ip4:192.0.2.0/24 -all'),
    ],
    'mx.strong.com': [{ type: 'A', data: '192.0.2.1' }],
    'google._domainkey.strong.com': [txt(['v=DKIM1; k=rsa; p=', KEY_2048])],
    'custom._domainkey.strong.com': [txt(['v=DKIM1; k=rsa; p=', KEY_2048])],
    '_dmarc.strong.com': [txt(`v=DMARC1; p=${dmarcPolicy}; rua=mailto:d@strong.com`)],
    'colon.com': [txt('v=spf1 a:foo:bar/baz.colon.com -all')],
    'foo:bar/baz.colon.com': [{ type: 'A', data: '198.51.100.9' }],
    'flaky.com': [{ type: 'SERVFAIL' }],
  };
}

let server: ZoneServer;
let t: TestApp;
let key: string;

beforeAll(async () => {
  server = await startZoneServer(zone());
  t = await createTestApp('sqlite', { config: { dnsServers: server.servers } });
  key = await t.key({ permissions: ['email:read'] });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

const get = (url: string, withKey: string | null = key) =>
  t.app.http.inject({ method: 'GET', url, headers: withKey ? { 'x-api-key': withKey } : {} });

describe('GET /v1/email/domain/:domain/dns', () => {
  it('answers a strong domain with grade A and domain_auth_score (no score field)', async () => {
    const res = await get('/v1/email/domain/strong.com/dns?refresh=true');
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.domain).toBe('strong.com');
    expect(data.domain_auth_score).toBe(100);
    expect(data).not.toHaveProperty('score');
    expect(data.grade).toBe('A');
    expect(data.dmarc.strength_rating).toBe('strong');
    expect(data.spf.all_qualifier).toBe('-');
  });

  it('answers a domain with no records with grade F and a recommendation per missing record', async () => {
    const data = (await get('/v1/email/domain/nothing.com/dns')).json().data;
    expect(data.domain_auth_score).toBe(0);
    expect(data.grade).toBe('F');
    expect(data.recommendations.length).toBeGreaterThanOrEqual(4);
  });

  it('caches 24 h per normalized domain and selector set: MISS, HIT (Age grows), BYPASS, expiry', async () => {
    server.setZone(zone('reject'));
    const url = '/v1/email/domain/cache.strong.com/dns?selectors=custom,google';
    server.setZone({ ...zone('reject'), 'cache.strong.com': [txt('v=spf1 -all')] });
    const miss = await get(url);
    expect(miss.headers['x-netrep-domain-dns-cache']).toBe('MISS');
    expect(miss.headers.age).toBe('0');
    expect(miss.headers['cache-control']).toBe('private, max-age=86400');
    const first = miss.json().data;
    expect(first.dmarc.inherited).toBe(true);
    expect(first.dmarc.effective_policy).toBe('reject');

    // The published policy changes; the cache keeps answering the first result without DNS.
    server.setZone({ ...zone('none'), 'cache.strong.com': [txt('v=spf1 -all')] });
    t.clock.advance(90_000);
    const sent = server.queries.length;
    const hit = await get('/v1/email/domain/CACHE.Strong.com./dns?selectors=%20Google,CUSTOM,custom');
    expect(server.queries.length).toBe(sent);
    expect(hit.headers['x-netrep-domain-dns-cache']).toBe('HIT');
    expect(hit.headers.age).toBe('90');
    expect(hit.headers['cache-control']).toBe('private, max-age=86310');
    expect(hit.json().data).toEqual(first);

    const bypass = await get(`${url}&refresh=true`);
    expect(bypass.headers['x-netrep-domain-dns-cache']).toBe('BYPASS');
    expect(bypass.headers.age).toBe('0');
    expect(bypass.headers['cache-control']).toBe('private, max-age=86400');
    expect(bypass.json().data.dmarc.effective_policy).toBe('none');
    expect(server.queries.length).toBeGreaterThan(sent);

    // The bypass stored its answer; it is served until 24 h after it was computed.
    t.clock.advance(86_399_000);
    const late = await get(url);
    expect(late.headers['x-netrep-domain-dns-cache']).toBe('HIT');
    expect(late.headers.age).toBe('86399');
    expect(late.headers['cache-control']).toBe('private, max-age=1');
    expect(late.json().data.dmarc.effective_policy).toBe('none');
    t.clock.advance(1000);
    const expired = await get(url);
    expect(expired.headers['x-netrep-domain-dns-cache']).toBe('MISS');
    expect(expired.headers.age).toBe('0');

    // A different selector set is a different entry.
    const other = await get('/v1/email/domain/cache.strong.com/dns?selectors=custom');
    expect(other.headers['x-netrep-domain-dns-cache']).toBe('MISS');
    server.setZone(zone());
  });

  it('does not store an answer cut short by DNS failures', async () => {
    const first = await get('/v1/email/domain/flaky.com/dns');
    expect(first.statusCode).toBe(200);
    expect(first.json().data.dns.errors.SERVFAIL).toBeGreaterThan(0);
    expect(first.headers['cache-control']).toBe('private, max-age=0');
    const again = await get('/v1/email/domain/flaky.com/dns');
    expect(again.headers['x-netrep-domain-dns-cache']).toBe('MISS');
  });

  it('selectors (spec rule 4): explicit ones all returned, defaults only when found', async () => {
    // The selector set is normalized (lower case, de-duplicated, sorted) for the cache key and the answer.
    const explicit = (await get('/v1/email/domain/strong.com/dns?selectors=nope,Custom&refresh=true')).json()
      .data;
    expect(explicit.dkim.map((d: { selector: string; found: boolean }) => [d.selector, d.found])).toEqual([
      ['custom', true],
      ['nope', false],
    ]);
    const defaults = (await get('/v1/email/domain/strong.com/dns?refresh=true')).json().data;
    expect(defaults.dkim.map((d: { selector: string }) => d.selector)).toEqual(['google']);
    const bad = await get('/v1/email/domain/strong.com/dns?selectors=a_b..c&refresh=true');
    expect(bad.json().data.dkim[0].validation_errors[0]).toMatch(/not a valid selector/);
    const many = Array.from({ length: 21 }, (_, i) => `s${i}`).join(',');
    const tooMany = await get(`/v1/email/domain/strong.com/dns?selectors=${many}`);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().data.code).toBe('INVALID_PARAMETER');
    const refresh = await get('/v1/email/domain/strong.com/dns?refresh=maybe');
    expect(refresh.json().data.code).toBe('INVALID_PARAMETER');
  });

  it('limits each key to 30 requests a minute on this route', async () => {
    const limited = await t.key({ permissions: ['email:read'] });
    const codes: number[] = [];
    for (let i = 0; i < 31; i++)
      codes.push((await get('/v1/email/domain/strong.com/dns', limited)).statusCode);
    expect(codes.slice(0, 30).every((c) => c === 200)).toBe(true);
    expect(codes[30]).toBe(429);
    const blocked = await get('/v1/email/domain/strong.com/dns', limited);
    expect(blocked.json().data.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(blocked.headers['retry-after']).toBeDefined();
    // Another key has its own bucket; the tool alias is not in this bucket.
    expect((await get('/v1/email/domain/strong.com/dns')).statusCode).toBe(200);
    expect((await get('/v1/tools/domain-check/strong.com', limited)).statusCode).toBe(200);
  });

  it('rejects missing and invalid domains', async () => {
    const own = await t.key({ permissions: ['email:read'] });
    for (const url of ['/v1/email/domain//dns', '/v1/email/domain/%20/dns']) {
      const res = await get(url, own);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().data.code).toBe('MISSING_DOMAIN');
    }
    for (const domain of [
      'localhost',
      'co.uk',
      '1.2.3.4',
      'a..b.com',
      'foo_bar.com',
      '-x.com',
      `${'a'.repeat(64)}.com`,
      'x%00.com',
    ]) {
      const res = await get(`/v1/email/domain/${domain}/dns`, own);
      expect(res.json().data.code, domain).toBe('INVALID_DOMAIN');
    }
    expect((await get('/v1/email/domain/strong.com/dns', null)).statusCode).toBe(401);
  });
});

describe('domain-check tool routes', () => {
  it('public route answers score (not domain_auth_score) without a key; the alias needs one', async () => {
    const pub = await get('/v1/public/tools/domain-check/strong.com', null);
    expect(pub.statusCode).toBe(200);
    expect(pub.json().data.score).toBe(100);
    expect(pub.json().data).not.toHaveProperty('domain_auth_score');
    expect(pub.headers['x-netrep-domain-dns-cache']).toBeUndefined();
    expect(pub.headers['x-ratelimit-limit']).toBe('60');
    expect((await get('/v1/tools/domain-check/strong.com', null)).statusCode).toBe(401);
    const keyed = await get('/v1/tools/domain-check/B%C3%BCcher.com');
    expect(keyed.json().data.domain).toBe('xn--bcher-kva.com');
  });

  it('empty segment → MISSING_DOMAIN (not 404); non-public names → INVALID_DOMAIN', async () => {
    for (const [url, withKey] of [
      ['/v1/public/tools/domain-check/', null],
      ['/v1/public/tools/domain-check/%20', null],
      ['/v1/tools/domain-check/', key],
    ] as const) {
      const res = await get(url, withKey);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().data.code).toBe('MISSING_DOMAIN');
    }
    expect((await get('/v1/tools/domain-check/', null)).statusCode).toBe(401);
    for (const domain of ['printer.local', 'example', '[192.0.2.1]', 'com', 'xn--.com']) {
      const res = await get(`/v1/public/tools/domain-check/${encodeURIComponent(domain)}`, null);
      expect(res.statusCode, domain).toBe(400);
      expect(res.json().data.code, domain).toBe('INVALID_DOMAIN');
    }
  });
});

describe('GET /v1/email/spf/check', () => {
  it('evaluates check_host with the matching mechanism', async () => {
    const pass = (await get('/v1/email/spf/check?ip=192.0.2.77&domain=strong.com&sender=a@strong.com')).json()
      .data;
    expect(pass).toMatchObject({
      result: 'pass',
      mechanism: 'ip4:192.0.2.0/24',
      mechanism_domain: 'strong.com',
    });
    const fail = (await get('/v1/email/spf/check?ip=198.51.100.1&sender=bob@strong.com')).json().data;
    expect(fail).toMatchObject({
      result: 'fail',
      mechanism: '-all',
      domain: 'strong.com',
      sender: 'bob@strong.com',
    });
    const none = (await get('/v1/email/spf/check?ip=::1&domain=nothing.com')).json().data;
    expect(none).toMatchObject({ result: 'none', sender: 'postmaster@nothing.com' });
    const temp = (await get('/v1/email/spf/check?ip=192.0.2.1&domain=flaky.com')).json().data;
    expect(temp.result).toBe('temperror');
  });

  it('follows a domain-spec outside hostname syntax through the raw DNS fallback', async () => {
    const res = (await get('/v1/email/spf/check?ip=198.51.100.9&domain=colon.com&helo=mail.colon.com')).json()
      .data;
    expect(res).toMatchObject({ result: 'pass', mechanism: 'a:foo:bar/baz.colon.com' });
  });

  it('rejects a missing domain, a missing or invalid IP, and needs a key', async () => {
    expect((await get('/v1/email/spf/check?ip=192.0.2.1')).json().data.code).toBe('MISSING_DOMAIN');
    expect((await get('/v1/email/spf/check?ip=192.0.2.1&domain=%20&sender=nobody')).json().data.code).toBe(
      'MISSING_DOMAIN',
    );
    expect((await get('/v1/email/spf/check?ip=300.1.1.1&domain=strong.com')).json().data.code).toBe(
      'INVALID_IP',
    );
    expect((await get('/v1/email/spf/check?domain=strong.com')).json().data.code).toBe('INVALID_PARAMETER');
    expect((await get('/v1/email/spf/check?ip=192.0.2.1&domain=strong.com', null)).statusCode).toBe(401);
  });
});

describe('a resolver that never answers', () => {
  let silent: dgram.Socket;
  let hung: TestApp;
  beforeAll(async () => {
    silent = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    hung = await createTestApp('sqlite', { config: { dnsServers: [`127.0.0.1:${silent.address().port}`] } });
  });
  afterAll(async () => {
    await hung?.close();
    silent?.close();
  });

  // Issue 31: a resolver that never answers is not a domain without mail records. Until
  // 2026-11-27 this answered 200 with grade F; now no grade is built on records not read.
  it('answers 503 DNS_UNAVAILABLE within the 5 s deadline, naming the resolver; nothing stored', async () => {
    const k = await hung.key({ permissions: ['email:read'] });
    const started = performance.now();
    const res = await hung.app.http.inject({
      method: 'GET',
      url: '/v1/email/domain/strong.com/dns',
      headers: { 'x-api-key': k },
    });
    const elapsed = performance.now() - started;
    expect(res.statusCode).toBe(503);
    expect(elapsed).toBeLessThan(5600);
    const body = res.json();
    expect(body.data.code).toBe('DNS_UNAVAILABLE');
    expect(body.data.error).toMatch(/^Could not check MX, SPF or DMARC of strong\.com/);
    expect(body.data.error).toContain(`127.0.0.1:${silent.address().port} (NETREP_DNS_SERVERS)`);
    expect(body.data.error).toMatch(/DEADLINE|TIMEOUT/);
    expect(body.meta.unchecked.length).toBeGreaterThan(0);
    expect(res.headers['cache-control']).toBe('private, max-age=0');
    expect(res.headers['retry-after']).toBe('30');
  }, 10_000);
});
