/**
 * Browsers get pages, programs JSON (issue 36 item 7): an unknown page, a wrong method and a
 * malformed dashboard URL answer a browser (Accept: text/html) with an HTML page of the same
 * status; /v1 and the other API paths keep the JSON envelope whatever is accepted. The home
 * page's feeds link leads to /feeds, which explains the feeds and the key they need.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
let t: TestApp;
const get = (url: string, accept?: string, method: 'GET' | 'POST' = 'GET') =>
  t.app.http.inject({ method, url, headers: accept ? { accept } : {} });

beforeAll(async () => {
  t = await createTestApp('sqlite', { config: { workers: false, publicUrl: 'https://netrep.example.org/' } });
});
afterAll(async () => {
  await t?.close();
});

describe('error pages for browsers', () => {
  it('an unknown page is an HTML 404 with the ways back', async () => {
    const res = await get('/no/such/page?x=1', BROWSER);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.headers['content-security-policy']).toContain("script-src 'none'");
    expect(res.body).toContain('<h1>Page not found</h1>');
    expect(res.body).toContain('There is no page at <code>/no/such/page</code>.');
    expect(res.body).toContain('<a href="/">the start page and its tools</a>');
  });

  it('a wrong method and a malformed dashboard address are pages too, with their status', async () => {
    const post = await get('/feeds', BROWSER, 'POST');
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET');
    expect(post.body).toContain('POST is not allowed here; use GET');
    const long = await get(`/dashboard/keys/${'9'.repeat(40)}/revoke`, BROWSER);
    expect(long.statusCode).toBe(400);
    expect(long.headers['content-type']).toContain('text/html');
  });

  it('programs keep the JSON envelope: API paths whatever they accept, any path without text/html', async () => {
    for (const [url, accept] of [
      ['/v1/no-such-route', BROWSER],
      ['/v1', BROWSER],
      ['/no/such/page', 'application/json'],
      ['/no/such/page', undefined],
    ] as const) {
      const res = await get(url, accept);
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toContain('application/json');
      expect((res.json() as { data: { code: string } }).data.code).toBe('NOT_FOUND');
    }
    const feeds = await get('/v1/feeds', BROWSER);
    expect(feeds.statusCode).toBe(401);
    expect(feeds.headers['content-type']).toContain('application/json');
  });
});

describe('/feeds', () => {
  it('the home page links it instead of the keyed JSON catalog', async () => {
    const home = await get('/', BROWSER);
    expect(home.body).toContain('<a href="/feeds">Threat feeds</a>');
    expect(home.body).not.toContain('href="/v1/feeds"');
  });

  it('explains every feed, its tier, and how a key downloads it', async () => {
    const res = await get('/feeds', BROWSER);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h1>Threat feeds</h1>');
    for (const name of [
      'tor_exits',
      'ai_crawlers',
      'vpn_proxy',
      'datacenter_ranges',
      'trap_confirmed',
      'asn_wide_blocked',
    ])
      expect(res.body).toContain(`<code>${name}</code>`);
    expect(res.body).toContain('premium (pro and enterprise keys)');
    expect(res.body).toContain("curl -H 'X-API-Key: YOUR_KEY' https://netrep.example.org/v1/feeds");
    expect(res.body).toContain('<a href="/dashboard/keys">API keys</a>');
  });
});
