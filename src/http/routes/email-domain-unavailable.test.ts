/**
 * Issue 31 through the real app: with a resolver that times out, refuses or answers SERVFAIL
 * (a real zone server on 127.0.0.1, NETREP_DNS_SERVERS pointing at it), every domain-check
 * route and the tool page say "could not check" and give no grade built on records they could
 * not read: 503 DNS_UNAVAILABLE when none of MX, SPF and DMARC was read, the grade of what was
 * read with complete: false otherwise. The DNS route's cache keeps no incomplete answer.
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
import { DEFAULT_DKIM_SELECTORS } from '../../emailauth/index.ts';

const txt = (data: string | string[]): ZoneRecord => ({ type: 'TXT', data });
const KEY = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .publicKey.export({ format: 'der', type: 'spki' })
  .toString('base64');

type Failure = 'TIMEOUT' | 'SERVFAIL' | 'REFUSED';

function strict(d: string, over: Zone = {}): Zone {
  return {
    [d]: [{ type: 'MX', data: { preference: 10, exchange: `mx.${d}` } }, txt('v=spf1 ip4:192.0.2.0/24 -all')],
    [`mx.${d}`]: [{ type: 'A', data: '192.0.2.1' }],
    [`google._domainkey.${d}`]: [txt(['v=DKIM1; k=rsa; p=', KEY])],
    [`_dmarc.${d}`]: [txt(`v=DMARC1; p=reject; rua=mailto:d@${d}`)],
    ...over,
  };
}

function allFailing(d: string, kind: Failure): Zone {
  const zone: Zone = { [d]: [{ type: kind }], [`_dmarc.${d}`]: [{ type: kind }] };
  for (const s of DEFAULT_DKIM_SELECTORS) zone[`${s}._domainkey.${d}`] = [{ type: kind }];
  return zone;
}

/** SPF (TXT at the domain) answers SERVFAIL, DMARC is refused; MX and DKIM answer. */
const PARTIAL: Zone = strict('part-mail.com', {
  'part-mail.com': [
    { type: 'MX', data: { preference: 10, exchange: 'mx.part-mail.com' } },
    { type: 'SERVFAIL' },
  ],
  '_dmarc.part-mail.com': [{ type: 'REFUSED' }],
});

const ZONE: Zone = {
  ...strict('good-mail.com'),
  ...allFailing('servfail-mail.com', 'SERVFAIL'),
  ...allFailing('refused-mail.com', 'REFUSED'),
  ...allFailing('timeout-mail.com', 'TIMEOUT'),
  ...PARTIAL,
};

let server: ZoneServer;
let t: TestApp;
let key: string;

beforeAll(async () => {
  server = await startZoneServer(ZONE);
  t = await createTestApp('sqlite', { config: { dnsServers: server.servers } });
  key = await t.key({ permissions: ['email:read'] });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

const get = (app: TestApp, url: string, withKey: string | null) =>
  app.app.http.inject({ method: 'GET', url, headers: withKey ? { 'x-api-key': withKey } : {} });

/** The three JSON routes and the tool page, asked at once. */
async function everySurface(app: TestApp, k: string, domain: string) {
  const [dns, publicTool, keyedTool, page] = await Promise.all([
    get(app, `/v1/email/domain/${domain}/dns`, k),
    get(app, `/v1/public/tools/domain-check/${domain}`, null),
    get(app, `/v1/tools/domain-check/${domain}`, k),
    get(app, `/tools/domain?domain=${domain}`, null),
  ]);
  return { json: { dns, publicTool, keyedTool }, page };
}

describe('a resolver that fails every query of the domain', () => {
  it.each([
    ['servfail-mail.com', 'SERVFAIL'],
    ['refused-mail.com', 'REFUSED'],
    ['timeout-mail.com', 'TIMEOUT|DEADLINE'],
  ])(
    '%s: 503 DNS_UNAVAILABLE on every route, "could not check" on the page, no grade',
    async (domain, code) => {
      const { json, page } = await everySurface(t, key, domain);
      for (const [name, res] of Object.entries(json)) {
        expect(res.statusCode, name).toBe(503);
        const body = res.json();
        expect(body.data.code, name).toBe('DNS_UNAVAILABLE');
        expect(body.data.error).toMatch(
          new RegExp(`^Could not check MX, SPF or DMARC of ${domain.replace('.', '\\.')}`),
        );
        expect(body.data.error).toContain(`${server.servers[0]} (NETREP_DNS_SERVERS)`);
        expect(body.data.error).toMatch(new RegExp(code));
        expect(body.data).not.toHaveProperty('grade');
        expect(body.meta.dns_servers).toEqual(server.servers);
        expect(body.meta.unchecked).toEqual(
          expect.arrayContaining([expect.objectContaining({ record: 'mx', query: `${domain} MX` })]),
        );
        expect(res.headers['retry-after']).toBe('30');
      }
      expect(page.statusCode).toBe(503);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain(`Could not check MX, SPF or DMARC of ${domain}`);
      expect(page.body).toContain('NETREP_DNS_SERVERS');
      expect(page.body).not.toMatch(/class="grade|No MX records|No SPF record|No DMARC record|Strength/);
    },
    20_000,
  );
});

describe('a resolver that fails some queries', () => {
  it('every route answers the grade of what was read, complete: false, the unchecked records; the page says could not check', async () => {
    const { json, page } = await everySurface(t, key, 'part-mail.com');
    for (const [name, res] of Object.entries(json)) {
      expect(res.statusCode, name).toBe(200);
      const data = res.json().data;
      expect(data.complete, name).toBe(false);
      expect(data.record_status).toMatchObject({ mx: 'found', spf: 'temperror', dmarc: 'temperror' });
      expect(data.record_status.dkim.google).toBe('found');
      expect(data.unchecked).toEqual([
        { record: 'spf', query: 'part-mail.com TXT', error: 'SERVFAIL' },
        { record: 'dmarc', query: '_dmarc.part-mail.com TXT', error: 'REFUSED' },
      ]);
      // MX 10 + DKIM 30; SPF and DMARC earn nothing until they can be read, and are not advised on.
      expect(data.score ?? data.domain_auth_score).toBe(40);
      const recs = data.recommendations.join('\n');
      expect(recs).toMatch(/Could not check SPF .*retry later/);
      expect(recs).toMatch(/Could not check DMARC .*retry later/);
      expect(recs).not.toMatch(/SPF: publish|DMARC: publish/);
    }
    expect(json.dns.headers['cache-control']).toBe('private, max-age=0');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Incomplete: could not check SPF, DMARC.');
    expect(page.body).toContain(`${server.servers[0]} (NETREP_DNS_SERVERS)`);
    expect(page.body).toMatch(/<strong>Could not check<\/strong> the SPF record/);
    expect(page.body).toMatch(/<strong>Could not check<\/strong> the DMARC record/);
    expect(page.body).not.toMatch(/No SPF record|No DMARC record|Strength/);
    expect(page.body).toContain('aria-label="grade D, incomplete"');
  });

  it('the DNS route keeps no incomplete answer: served with max-age=0, recomputed, stored once complete', async () => {
    const url = '/v1/email/domain/part-mail.com/dns?selectors=google';
    const first = await get(t, url, key);
    expect(first.json().data.complete).toBe(false);
    expect(first.headers['cache-control']).toBe('private, max-age=0');
    const again = await get(t, url, key);
    expect(again.headers['x-netrep-domain-dns-cache']).toBe('MISS');
    // The resolver recovers: the next answer is complete and kept for 24 h.
    server.setZone({ ...ZONE, ...strict('part-mail.com') });
    try {
      const fixed = await get(t, url, key);
      expect(fixed.headers['x-netrep-domain-dns-cache']).toBe('MISS');
      expect(fixed.json().data).toMatchObject({ complete: true, unchecked: [], grade: 'A' });
      expect(fixed.headers['cache-control']).toBe('private, max-age=86400');
      expect((await get(t, url, key)).headers['x-netrep-domain-dns-cache']).toBe('HIT');
    } finally {
      server.setZone(ZONE);
    }
  });

  it('a 503 is not cached either', async () => {
    const url = '/v1/email/domain/servfail-mail.com/dns?selectors=google';
    expect((await get(t, url, key)).statusCode).toBe(503);
    server.setZone({ ...ZONE, ...strict('servfail-mail.com') });
    try {
      const fixed = await get(t, url, key);
      expect(fixed.statusCode).toBe(200);
      expect(fixed.headers['x-netrep-domain-dns-cache']).toBe('MISS');
      expect(fixed.json().data.grade).toBe('A');
    } finally {
      server.setZone(ZONE);
    }
  });
});

describe('with the fixture zones answering', () => {
  it('the answer is complete, every record found, the grade as before', async () => {
    const { json, page } = await everySurface(t, key, 'good-mail.com');
    for (const res of Object.values(json)) {
      const data = res.json().data;
      expect(data).toMatchObject({ grade: 'A', complete: true, unchecked: [] });
      expect(data.record_status).toMatchObject({ mx: 'found', spf: 'found', dmarc: 'found' });
    }
    expect(page.body).toContain('aria-label="grade A"');
    expect(page.body).not.toMatch(/could not check/i);
  });
});

describe('the resolver is unreachable (nothing listens on its port)', () => {
  let closed: TestApp;
  let port: number;
  beforeAll(async () => {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    port = socket.address().port;
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    closed = await createTestApp('sqlite', { config: { dnsServers: [`127.0.0.1:${port}`] } });
  });
  afterAll(async () => {
    await closed?.close();
  });

  it('the tool page for gmail.com says could not check and names the resolver, no red F', async () => {
    const k = await closed.key({ permissions: ['email:read'] });
    const { json, page } = await everySurface(closed, k, 'gmail.com');
    for (const res of Object.values(json)) {
      expect(res.statusCode).toBe(503);
      expect(res.json().data.error).toContain(`127.0.0.1:${port} (NETREP_DNS_SERVERS)`);
    }
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain('Could not check MX, SPF or DMARC of gmail.com');
    expect(page.body).not.toMatch(/class="grade|No MX records|No SPF record|No DMARC record/);
  });
});
