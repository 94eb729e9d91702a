/**
 * Issue 20 finding 8, through HTTP: the deprecated IPv4-compatible form `::a.b.c.d` is the IPv6
 * address it spells on every path (the socket fast path and Fastify); percent-encoded UTF-8 in a
 * path is echoed as the characters it encodes; anonymous limits count an IPv6 client by its /64.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';

let t: IntelTestApp;
let base: string;
let key: string;

/** Lookups answered by the socket fast path so far. */
async function fastCount(): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let n = 0;
  for (const line of text.split('\n'))
    if (line.startsWith('netrep_http_fast_path_total{')) n += Number(line.split(' ').at(-1));
  return n;
}

async function get(path: string, headers: Record<string, string> = {}) {
  const r = await fetch(`${base}${path}`, { headers });
  const text = await r.text();
  return { status: r.status, body: JSON.parse(text) as { data: Record<string, unknown> } };
}

beforeAll(async () => {
  t = await createIntelTestApp('sqlite', { config: { trustedProxies: ['127.0.0.1/32'] } });
  base = await t.app.listen();
  key = await t.key();
  // The key is cached, so keyed lookups take the socket fast path.
  await get('/v1/ip/8.8.4.4', { 'x-api-key': key });
});
afterAll(async () => t?.close());

describe('::a.b.c.d is an IPv6 address, not the IPv4 one', () => {
  it('keyed lookup: the fast path and the Fastify route both answer it as ::808:808', async () => {
    const v4 = await get('/v1/ip/8.8.8.8', { 'x-api-key': key });
    expect(v4.status).toBe(200);
    expect(v4.body.data['ip']).toBe('8.8.8.8');

    const before = await fastCount();
    const fast = await get('/v1/ip/::8.8.8.8', { 'x-api-key': key });
    expect(await fastCount()).toBe(before + 1);
    const slow = await t.app.http.inject({ url: '/v1/ip/::8.8.8.8', headers: { 'x-api-key': key } });
    for (const r of [fast, { status: slow.statusCode, body: slow.json() }]) {
      // Not 8.8.8.8's record: the IPv6 address has none of its own.
      expect(r.body.data['ip']).not.toBe('8.8.8.8');
      expect(JSON.stringify(r.body)).not.toContain('"8.8.8.8"');
      if (r.status === 200) expect(r.body.data['ip']).toBe('::808:808');
      else expect(r.status).toBe(404);
    }
    // The mapped form still is the IPv4 address.
    const mapped = await get('/v1/ip/::ffff:8.8.8.8', { 'x-api-key': key });
    expect(mapped.body.data['ip']).toBe('8.8.8.8');
  });

  it('public lookup and the blocklist check do not alias it to the IPv4 address', async () => {
    const pub = await get('/v1/public/ip/::8.8.8.8');
    expect(pub.body.data['ip']).not.toBe('8.8.8.8');
    expect([200, 404]).toContain(pub.status);
    const admin = await t.key({ permissions: ['admin'] });
    const listed = await fetch(`${base}/v1/admin/blocklist/listings`, {
      method: 'POST',
      headers: { 'x-api-key': admin, 'content-type': 'application/json' },
      body: JSON.stringify({ ip: '198.51.100.7', type: 'spam', reason: 'test' }),
    });
    expect(listed.status).toBeLessThan(300);
    const v4 = await get('/v1/blocklist/ip/198.51.100.7', { 'x-api-key': key });
    expect(v4.body.data['listed']).toBe(true);
    const compat = await get('/v1/blocklist/ip/::198.51.100.7', { 'x-api-key': key });
    expect(compat.status).toBe(200);
    expect(compat.body.data['ip']).toBe('::c633:6407');
    expect(compat.body.data['listed']).toBe(false);
  });
});

describe('percent-encoded UTF-8 in a path is echoed as its characters', () => {
  it.each([
    ['/v1/ip/%C3%A9t%C3%A9', 'été', 'INVALID_IP'],
    ['/v1/public/ip/caf%C3%A9', 'café', 'INVALID_IP'],
    ['/v1/asn/%E2%82%AC', '€', 'INVALID_ASN'],
    ['/v1/public/asn/%F0%9F%98%80', '😀', 'INVALID_ASN'],
    ['/v1/blocklist/ip/%C3%BC', 'ü', 'INVALID_IP'],
    ['/v1/email/ip/%E6%97%A5/warmup', '日', 'INVALID_IP'],
    ['/v1/feeds/%C3%A9/manifest', 'é', 'NOT_FOUND'],
    ['/v1/no-such/%C3%A9t%C3%A9', 'été', 'NOT_FOUND'],
  ])('%s', async (path, text, code) => {
    const r = await get(path, { 'x-api-key': key });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(r.body.data['code']).toBe(code);
    expect(r.body.data['error']).toContain(text);
    expect(r.body.data['error']).not.toMatch(/Ã|â‚|ðŸ/);
  });

  it('a path that is not UTF-8 is a 400, not mojibake', async () => {
    const r = await get('/v1/ip/%E9t%E9', { 'x-api-key': key });
    expect(r.status).toBe(400);
    expect(r.body.data['code']).toBe('INVALID_PARAMETER');
  });
});

describe('anonymous limits count an IPv6 client by its /64', () => {
  const from = (ip: string) => ({ 'x-forwarded-for': ip });

  it('rotating addresses inside one /64 shares one bucket; another /64 has its own', async () => {
    let last = 0;
    for (let i = 1; i <= 60; i++) {
      const r = await fetch(`${base}/v1/public/myip`, { headers: from(`2001:db8:1:2::${i.toString(16)}`) });
      await r.arrayBuffer();
      last = r.status;
      expect(r.status, `request ${i}`).toBe(200);
    }
    expect(last).toBe(200);
    const over = await fetch(`${base}/v1/public/myip`, { headers: from('2001:db8:1:2:ffff:1:2:3') });
    expect(over.status).toBe(429);
    expect(((await over.json()) as { data: { code: string } }).data.code).toBe('RATE_LIMIT_EXCEEDED');
    const other = await fetch(`${base}/v1/public/myip`, { headers: from('2001:db8:1:3::1') });
    expect(other.status).toBe(200);
    // IPv4 clients are still counted one address at a time.
    const v4 = await fetch(`${base}/v1/public/myip`, { headers: from('203.0.113.9') });
    expect(v4.status).toBe(200);
  });
});
