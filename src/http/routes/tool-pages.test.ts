/**
 * The public tool pages through the real app: a real dataset (fixture packages), a real DNS
 * server on 127.0.0.1, the real blocklist. Each page answers a real question, bad and hostile
 * input re-renders the form with a 4xx and a message (never a 500, never JSON), every value
 * is escaped, and the pages count against the same anonymous per-IP bucket as the API.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../../test/helpers/dns-guard.ts';
import { startZoneServer, type ZoneRecord, type ZoneServer } from '../../../test/helpers/dns-zone-server.ts';
import { createIntelTestApp, type IntelTestApp } from '../../../test/helpers/intel-app.ts';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';

const txt = (data: string | string[]): ZoneRecord => ({ type: 'TXT', data });
const KEY = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .publicKey.export({ format: 'der', type: 'spki' })
  .toString('base64');
const SAMPLE = readFileSync(sharedDataPath('email/headers/spamscope-mail_test_6.headers.txt'), 'utf8');
const XSS = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>';

let server: ZoneServer;
let t: IntelTestApp;
let n = 0;
/** Each test its own client address, so the per-IP bucket of one test does not leak into another. */
const client = () => `198.18.${Math.floor(++n / 250)}.${n % 250}`;

const get = (url: string, remoteAddress = client()) =>
  t.app.http.inject({ method: 'GET', url, remoteAddress });
const postForm = (url: string, form: Record<string, string>, remoteAddress = client()) =>
  t.app.http.inject({
    method: 'POST',
    url,
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });

function expectPage(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
) {
  expect(res.statusCode, res.body.slice(0, 400)).toBe(status);
  expect(String(res.headers['content-type'])).toContain('text/html');
  expect(String(res.headers['content-security-policy'])).toContain("script-src 'none'");
  expect(res.body.startsWith('<!doctype html>')).toBe(true);
}

beforeAll(async () => {
  server = await startZoneServer({
    'strong.com': [
      { type: 'MX', data: { preference: 10, exchange: 'mx.strong.com' } },
      txt('v=spf1 ip4:192.0.2.0/24 -all'),
    ],
    'mx.strong.com': [{ type: 'A', data: '192.0.2.1' }],
    'google._domainkey.strong.com': [txt(['v=DKIM1; k=rsa; p=', KEY])],
    '_dmarc.strong.com': [txt('v=DMARC1; p=reject; rua=mailto:d@strong.com')],
    'weak.com': [txt('v=spf1 +all')],
    // A record full of markup: it must reach the page as text.
    'evil.com': [txt(`v=spf1 include:${'x'.repeat(3)}.evil.com ${XSS} -all`)],
  });
  t = await createIntelTestApp('sqlite', { config: { dnsServers: server.servers } });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

describe('start page', () => {
  it('GET / names every tool, the dashboard and the docs', async () => {
    const res = await get('/');
    expectPage(res, 200);
    for (const href of [
      '/tools/ip',
      '/tools/domain',
      '/tools/headers',
      '/tools/blocklist',
      '/dashboard',
      '/docs',
    ]) {
      expect(res.body).toContain(`href="${href}"`);
    }
    expect(res.body).toMatch(/Serving IP dataset version \d+/);
    expect(res.body).toContain('<html lang="en">');
    expect(res.body).toContain('name="viewport"');
  });
});

describe('/tools/ip', () => {
  it('the empty form, then a real answer: flags, threat explanation, geolocation with DB-IP attribution', async () => {
    const empty = await get('/tools/ip');
    expectPage(empty, 200);
    expect(empty.body).toContain('<form method="get" action="/tools/ip"');
    expect(empty.body).not.toContain('role="alert"');

    const res = await get('/tools/ip?ip=8.8.8.8');
    expectPage(res, 200);
    expect(res.body).toContain('8.8.8.0/24');
    expect(res.body).toContain('AS15169 Google LLC');
    expect(res.body).toContain('<dt>Datacenter or hosting</dt><dd>yes (Google)</dd>');
    expect(res.body).toContain('+5 datacenter network');
    expect(res.body).toContain('class="level level-low">Threat level: Low</span>');
    expect(res.body).toContain('No warning signs.');
    expect(res.body).toContain('<h2 id="geo-h">Location</h2>');
    expect(res.body).toContain('IP Geolocation by DB-IP');
    expect(res.body).toContain('value="8.8.8.8"');
  });

  it('a bogon says why it has no network data', async () => {
    const res = await get('/tools/ip?ip=10.1.2.3');
    expectPage(res, 200);
    expect(res.body).toContain('10.1.2.3 is not a public address');
    expect(res.body).toContain('10.0.0.0/8');
    expect(res.body).not.toContain('id="threat-h"');
  });

  it('bad input: the form again with a message and a 4xx', async () => {
    for (const [q, status, text] of [
      ['', 400, 'Enter an IP address'],
      ['not-an-ip', 400, 'is not an IPv4 or IPv6 address'],
      ['8.8.8.8/33', 400, 'is not an IPv4 or IPv6 address'],
      ['999.1.1.1', 400, 'is not an IPv4 or IPv6 address'],
    ] as const) {
      const res = await get(`/tools/ip?ip=${encodeURIComponent(q)}`);
      expectPage(res, status);
      expect(res.body).toContain(text);
      expect(res.body).toContain('role="alert"');
      expect(res.body).toContain('aria-invalid="true"');
    }
    // A repeated parameter is not an address either.
    expectPage(await get('/tools/ip?ip=1.1.1.1&ip=8.8.8.8'), 400);
  });

  it('escapes what it echoes', async () => {
    const res = await get(`/tools/ip?ip=${encodeURIComponent(XSS)}`);
    expectPage(res, 400);
    expect(res.body).not.toContain('<script>alert');
    expect(res.body).not.toContain('<img src=x');
    expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img');
  });
});

describe('/tools/domain', () => {
  it('a grade card, each record with its findings, the recommendations', async () => {
    const res = await get('/tools/domain?domain=Strong.com');
    expectPage(res, 200);
    expect(res.body).toContain('<h2 id="grade-h">strong.com</h2>');
    expect(res.body).toMatch(/class="letter" aria-label="grade A">A</);
    expect(res.body).toContain('v=spf1 ip4:192.0.2.0/24 -all');
    expect(res.body).toContain('google._domainkey.strong.com');
    expect(res.body).toContain('2048 bits');
    expect(res.body).toContain('v=DMARC1; p=reject; rua=mailto:d@strong.com');
    for (const h of ['MX', 'SPF', 'DKIM', 'DMARC', 'Recommendations'])
      expect(res.body).toContain(`>${h}</h2>`);

    const weak = await get('/tools/domain?domain=weak.com');
    expectPage(weak, 200);
    expect(weak.body).toMatch(/aria-label="grade F"/);
    expect(weak.body).toContain('No DMARC record.');
    expect(weak.body).not.toContain('Nothing to improve.');
  });

  it('bad input: 4xx with a message', async () => {
    const blank = await get('/tools/domain?domain=%20');
    expectPage(blank, 400);
    expect(blank.body).toContain('Enter a domain name');
    for (const q of ['localhost', 'a..b', '-x-.com', 'x'.repeat(300), '1.2.3.4', 'exa mple.com']) {
      const res = await get(`/tools/domain?domain=${encodeURIComponent(q)}`);
      expect(res.statusCode, q).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, q).toBeLessThan(500);
      expect(res.body).toContain('role="alert"');
    }
  });

  it('escapes a hostile record and a hostile domain', async () => {
    const res = await get('/tools/domain?domain=evil.com');
    expectPage(res, 200);
    expect(res.body).not.toContain('<script>alert');
    expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const bad = await get(`/tools/domain?domain=${encodeURIComponent(XSS)}`);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).not.toContain('<script>alert');
  });
});

describe('/tools/headers', () => {
  it('a pasted header: hop timeline with delays, enrichment, auth results, anomalies', async () => {
    const form = await get('/tools/headers');
    expectPage(form, 200);
    expect(form.body).toContain('<textarea id="headers" name="headers"');

    const res = await postForm('/tools/headers', { headers: SAMPLE });
    expectPage(res, 200);
    expect(res.body).toContain('<ol class="timeline">');
    expect(res.body).toMatch(/<strong>Hop 1<\/strong>/);
    expect(res.body).toMatch(/class="delay">\+/);
    for (const h of ['Delivery path', 'Authentication', 'Origin', 'Anomalies'])
      expect(res.body).toContain(`>${h}</h2>`);
    // The pasted text stays in the form, escaped.
    expect(res.body).toContain('&lt;');
  });

  it('enriches hops from the dataset', async () => {
    const headers =
      'Received: from mail.example.net (mail.example.net [8.8.8.8]) by mx.example.org with ESMTPS; Mon, 1 Jun 2026 10:00:05 +0000\r\n' +
      'Received: from client (client [192.0.2.7]) by mail.example.net with ESMTPSA; Mon, 1 Jun 2026 10:00:00 +0000\r\n' +
      'From: a@example.org\r\nDate: Mon, 1 Jun 2026 10:00:00 +0000\r\n';
    const res = await postForm('/tools/headers', { headers });
    expectPage(res, 200);
    expect(res.body).toContain('AS15169 Google LLC');
    expect(res.body).toContain('+5s');
  });

  it('bad input: empty, too large, not a form, hostile', async () => {
    const empty = await postForm('/tools/headers', { headers: '   ' });
    expectPage(empty, 400);
    expect(empty.body).toContain('role="alert"');
    expectPage(await postForm('/tools/headers', {}), 400);
    const big = await postForm('/tools/headers', { headers: `Subject: ${'x'.repeat(50_000)}` });
    expectPage(big, 400);
    const huge = await postForm('/tools/headers', { headers: 'x'.repeat(70_000) });
    expectPage(huge, 413);
    const bin = await t.app.http.inject({
      method: 'POST',
      url: '/tools/headers',
      remoteAddress: client(),
      headers: { 'content-type': 'application/octet-stream' },
      payload: 'Subject: hi',
    });
    expect(bin.statusCode).toBe(415);
    expect(String(bin.headers['content-type'])).toContain('text/html');
    const plain = await t.app.http.inject({
      method: 'POST',
      url: '/tools/headers',
      remoteAddress: client(),
      headers: { 'content-type': 'text/plain' },
      payload: 'Subject: hi',
    });
    expect(plain.statusCode).toBe(400);
    expect(String(plain.headers['content-type'])).toContain('text/html');
    const xss = await postForm('/tools/headers', {
      headers: `Received: from ${XSS} by ${XSS}; Mon, 1 Jun 2026 10:00:00 +0000\r\nX-Mailer: ${XSS}\r\nFrom: ${XSS}\r\n`,
    });
    expect(xss.statusCode).toBeLessThan(500);
    expect(xss.body).not.toContain('<script>alert');
    expect(xss.body).not.toContain('<img src=x');
  });
});

describe('/tools/blocklist', () => {
  it('listed and not listed', async () => {
    await t.app.services.blocklist.list({ ip: '203.0.113.77', type: 'phishing', reason: `kit ${XSS}` });
    const listed = await get('/tools/blocklist?ip=203.0.113.77');
    expectPage(listed, 200);
    expect(listed.body).toContain('<strong>Listed</strong> for phishing');
    expect(listed.body).toContain('127.0.0.4');
    expect(listed.body).not.toContain('<script>alert');
    expect(listed.body).toContain('kit &lt;script&gt;');
    const clean = await get('/tools/blocklist?ip=198.51.100.1');
    expectPage(clean, 200);
    expect(clean.body).toContain('Not listed.');
    const bad = await get('/tools/blocklist?ip=nope');
    expectPage(bad, 400);
    expect(bad.body).toContain('is not an IPv4 or IPv6 address');
    expectPage(await get('/tools/blocklist'), 200);
  });
});

describe('limits and robustness', () => {
  it('a question on a page counts against the API bucket of the same client, and a 429 is a page', async () => {
    const ip = client();
    const api1 = await get('/v1/public/blocklist/ip/198.51.100.1', ip);
    const before = Number(api1.headers['x-ratelimit-remaining']);
    await get('/tools/blocklist?ip=198.51.100.1', ip);
    await get('/tools/ip?ip=8.8.8.8', ip);
    const api2 = await get('/v1/public/blocklist/ip/198.51.100.1', ip);
    expect(Number(api2.headers['x-ratelimit-remaining'])).toBe(before - 3);
    // Only questions count: the empty forms and the start page are free.
    await get('/tools/ip', ip);
    await get('/', ip);
    const api3 = await get('/v1/public/blocklist/ip/198.51.100.1', ip);
    expect(Number(api3.headers['x-ratelimit-remaining'])).toBe(before - 4);
    for (let i = Number(api3.headers['x-ratelimit-remaining']); i > 0; i--) {
      await get('/v1/public/blocklist/ip/198.51.100.1', ip);
    }
    const limited = await get('/tools/ip?ip=8.8.8.8', ip);
    expectPage(limited, 429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.body).toContain('Too many questions from your address');
  });

  it('random queries and bodies never give a 5xx or JSON', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.constantFrom('%', '\u0000', '::', '1.2.3.4', 'é.com'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/tools/ip', '/tools/domain', '/tools/blocklist'),
        fc.constantFrom('ip', 'domain', 'x'),
        text,
        async (path, name, value) => {
          const res = await get(`${path}?${name}=${encodeURIComponent(value)}`);
          expect(res.statusCode).toBeLessThan(500);
          expect(String(res.headers['content-type'])).toContain('text/html');
        },
      ),
      { numRuns: 60 },
    );
    await fc.assert(
      fc.asyncProperty(text, async (value) => {
        const res = await postForm('/tools/headers', { headers: value });
        expect(res.statusCode).toBeLessThan(500);
        expect(String(res.headers['content-type'])).toContain('text/html');
      }),
      { numRuns: 40 },
    );
  });
});
