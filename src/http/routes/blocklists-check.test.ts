/**
 * GET /v1/public/blocklists/ip/{ip} and the /tools/blocklist page on the real app, its public
 * lists served by a real DNS server on 127.0.0.1 (test/helpers/dnsbl-fixture-zones.ts): this
 * instance's listing beside every list's answer, counted in the anonymous bucket, bad input a
 * 400 (JSON for the route, the form again for the page), the RFC 5782 test entry described truly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../../test/helpers/dns-guard.ts';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { startZoneServer, type ZoneServer } from '../../../test/helpers/dns-zone-server.ts';
import {
  dnsblFixtureZones,
  FIXTURE_ZONES,
  LISTED_IP,
  LISTED_REASON,
} from '../../../test/helpers/dnsbl-fixture-zones.ts';
import { BlocklistsAnswer } from '../../listcheck/index.ts';

// The answer's times are RFC 3339 (the app's own validator knows the format; TypeBox's Value is told here).
FormatRegistry.Set('date-time', (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(v));

let server: ZoneServer;
let t: TestApp;
let n = 0;
const client = () => `198.18.7.${++n}`;
const get = (url: string, remoteAddress = client()) =>
  t.app.http.inject({ method: 'GET', url, remoteAddress });

beforeAll(async () => {
  server = await startZoneServer(dnsblFixtureZones());
  t = await createTestApp('sqlite', {
    config: {
      dnsServers: server.servers,
      dnsblCheckZones: [...FIXTURE_ZONES, 'other.test=https://other.test/removal'],
      dnsblCheckTimeoutMs: 200,
    },
  });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

describe('GET /v1/public/blocklists/ip/{ip}', () => {
  it('answers the own zone and every list, in the configured order, in the documented shape', async () => {
    await t.app.services.blocklist.list({ ip: LISTED_IP, type: 'spam', reason: 'trap hits' });
    const res = await get(`/v1/public/blocklists/ip/${LISTED_IP}`);
    expect(res.statusCode, res.body).toBe(200);
    const { data } = res.json() as { data: BlocklistsAnswer };
    expect([...Value.Errors(BlocklistsAnswer, data)].map((e) => `${e.path} ${e.message}`)).toEqual([]);
    expect(data.netrep).toMatchObject({ zone: 'bl.netrep.test', ip: LISTED_IP, listed: true });
    expect(data.netrep.listing?.reason).toBe('trap hits');
    expect(data.zones.map((z) => [z.zone, z.status])).toEqual([
      ['listing.test', 'listed'],
      ['clean.test', 'not_listed'],
      ['refusing.test', 'refused'],
      ['excessive.test', 'refused'],
      ['slow.test', 'unavailable'],
      ['broken.test', 'unavailable'],
      ['other.test', 'unavailable'],
    ]);
    expect(data.zones[0]).toMatchObject({ return_codes: ['127.0.0.4'], reason: LISTED_REASON });
    expect(data.zones.at(-1)?.delist_url).toBe('https://other.test/removal');
    expect(data.summary).toEqual({ listed: 1, not_listed: 1, refused: 2, unavailable: 3, not_checked: 0 });
  });

  it('is counted in the anonymous per-IP bucket, like the other public routes', async () => {
    const ip = client();
    const first = await get('/v1/public/blocklists/ip/198.51.100.7', ip);
    expect(first.headers['x-ratelimit-limit']).toBe('60');
    const single = await get('/v1/public/blocklist/ip/198.51.100.7', ip);
    expect(Number(single.headers['x-ratelimit-remaining'])).toBe(
      Number(first.headers['x-ratelimit-remaining']) - 1,
    );
  });

  it('refuses what is not an IP address with 400 INVALID_IP', async () => {
    for (const bad of ['nope', '1.2.3', '%3Cscript%3E']) {
      const res = await get(`/v1/public/blocklists/ip/${bad}`);
      expect(res.statusCode).toBe(400);
      expect((res.json() as { data: { code: string } }).data.code).toBe('INVALID_IP');
    }
  });
});

describe('/tools/blocklist', () => {
  it('shows this instance’s list and every public list with its result, reason and delisting page', async () => {
    const res = await get(`/tools/blocklist?ip=${LISTED_IP}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('This instance’s list <code>bl.netrep.test</code>');
    expect(res.body).toContain('<strong>Listed on 1 of 7 public lists.</strong>');
    expect(res.body).toMatch(/data-zone="listing.test">[\s\S]*?class="status-listed">Listed</);
    expect(res.body).toContain(LISTED_REASON);
    expect(res.body).toMatch(/data-zone="refusing.test">[\s\S]*?Refused the query/);
    expect(res.body).toContain('public or open resolver (127.255.255.254)');
    expect(res.body).toMatch(/data-zone="slow.test">[\s\S]*?No answer/);
    expect(res.body).toContain('href="https://other.test/removal"');
  });

  it('says the RFC 5782 test entry is a permanent test entry, not "listed since 1970"', async () => {
    const res = await get('/tools/blocklist?ip=127.0.0.2');
    expect(res.body).toContain('<dt>Listed since</dt><dd>permanent test entry (RFC 5782)</dd>');
    expect(res.body).not.toContain('1970');
  });

  it('re-renders the form with the message for a bad address', async () => {
    const res = await get('/tools/blocklist?ip=nope');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('is not an IPv4 or IPv6 address');
  });
});
