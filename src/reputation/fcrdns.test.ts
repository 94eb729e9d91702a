/** FCrDNS against a real DNS server on 127.0.0.1, then through the daily worker and the reputation route. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import { createTestApp } from '../../test/helpers/app.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { STORE_KINDS, skipStore } from '../../test/helpers/stores.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { checkFcrdns } from './fcrdns.ts';

let zone: ZoneServer;
beforeAll(async () => {
  zone = await startZoneServer({
    // pass: PTR → mail.good.test → A back to the IP
    '10.113.0.203.in-addr.arpa': [{ type: 'PTR', data: 'mail.good.test' }],
    'mail.good.test': [{ type: 'A', data: '203.0.113.10' }],
    // fail: the name resolves elsewhere
    '11.113.0.203.in-addr.arpa': [{ type: 'PTR', data: 'mail.other.test' }],
    'mail.other.test': [{ type: 'A', data: '198.51.100.7' }],
    // several PTR names, the second one confirms
    '12.113.0.203.in-addr.arpa': [
      { type: 'PTR', data: 'stale.example.test' },
      { type: 'PTR', data: 'mx12.example.test' },
    ],
    'mx12.example.test': [{ type: 'A', data: '203.0.113.12' }],
    // unknown: the forward lookup times out
    '13.113.0.203.in-addr.arpa': [{ type: 'PTR', data: 'slow.example.test' }],
    'slow.example.test': [{ type: 'TIMEOUT' }],
    // unknown: the reverse zone fails
    '14.113.0.203.in-addr.arpa': [{ type: 'SERVFAIL' }],
    // IPv6 pass
    '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa': [
      { type: 'PTR', data: 'v6.good.test' },
    ],
    'v6.good.test': [{ type: 'AAAA', data: '2001:db8::1' }],
    // 203.0.113.15 has no PTR at all (NXDOMAIN): fail
    // 203.0.113.100-139: the reverse lookup never answers (a pass over them is slow)
    ...Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `${100 + i}.113.0.203.in-addr.arpa`,
        [{ type: 'TIMEOUT' as const }],
      ]),
    ),
  });
});
afterAll(async () => {
  await zone.close();
});

describe('checkFcrdns', () => {
  const dns = () => createDnsClient({ servers: zone.servers, timeoutMs: 300, tries: 1 });
  it.each([
    ['203.0.113.10', { ptrHostname: 'mail.good.test', forwardMatch: true, forwardIps: ['203.0.113.10'] }],
    ['203.0.113.11', { ptrHostname: 'mail.other.test', forwardMatch: false, forwardIps: ['198.51.100.7'] }],
    ['203.0.113.12', { ptrHostname: 'mx12.example.test', forwardMatch: true, forwardIps: ['203.0.113.12'] }],
    ['203.0.113.15', { ptrHostname: null, forwardMatch: false, forwardIps: [] }],
    ['2001:db8::1', { ptrHostname: 'v6.good.test', forwardMatch: true, forwardIps: ['2001:db8::1'] }],
  ])('%s', async (ip, expected) => {
    const r = await checkFcrdns(ip, dns(), 1000, 900);
    expect(r).toEqual({ ip, ...expected, lastCheckedAt: 1000, lastObservedAt: 900 });
  });

  it('resolver trouble is unknown, not a failure', async () => {
    expect(await checkFcrdns('203.0.113.13', dns(), 1000, null)).toBeNull();
    expect(await checkFcrdns('203.0.113.14', dns(), 1000, null)).toBeNull();
    expect(await checkFcrdns('not an ip', dns(), 1000, null)).toBeNull();
  });
});

// The app tests below each wait out DNS timeouts at the resolver's defaults on an app and store of
// their own (the zone server answers each query alone): they run side by side, not one after another.
describe.concurrent.each(STORE_KINDS)('daily FCrDNS check on %s', (kind) => {
  it.skipIf(skipStore(kind))('checks recent senders and feeds the fcrdns factor', async () => {
    const t = await createTestApp(kind, { config: { dnsServers: zone.servers } });
    try {
      const key = await t.key({ permissions: ['telemetry:write'] });
      const now = t.clock();
      const observations = ['203.0.113.10', '203.0.113.11', '203.0.113.13'].map((ip) => ({
        ip,
        bounce_rate: 0.01,
        complaint_rate: 0,
        volume_24h: 500,
        observed_at: new Date(now - 3_600_000).toISOString(),
      }));
      const ingest = await t.app.http.inject({
        method: 'POST',
        url: '/v1/email/telemetry/ingest',
        headers: { 'x-api-key': key },
        payload: { observations },
      });
      expect(ingest.json().data).toMatchObject({ accepted: 3, rejected: 0 });
      expect(await t.app.fcrdns.runOnce()).toEqual({ checked: 3, stored: 2 });

      const rep = async (ip: string) =>
        (
          await t.app.http.inject({ url: `/v1/email/ip/${ip}/reputation`, remoteAddress: '192.0.2.50' })
        ).json().data;
      const good = await rep('203.0.113.10');
      expect(good.fcrdns).toMatchObject({
        ip: '203.0.113.10',
        ptr_hostname: 'mail.good.test',
        forward_match: true,
      });
      expect(good.factors.find((f: { name: string }) => f.name === 'fcrdns')).toMatchObject({ impact: 0 });
      const bad = await rep('203.0.113.11');
      expect(bad.fcrdns).toMatchObject({ forward_match: false, forward_ips: ['198.51.100.7'] });
      expect(bad.factors.find((f: { name: string }) => f.name === 'fcrdns')).toMatchObject({ impact: -15 });
      // Unknown: no stored result, no factor.
      const unknown = await rep('203.0.113.13');
      expect(unknown.fcrdns ?? null).toBeNull();
      expect(unknown.factors.some((f: { name: string }) => f.name === 'fcrdns')).toBe(false);
    } finally {
      await t.close();
    }
  });
});

describe.concurrent.each(STORE_KINDS)('stopping the FCrDNS worker on %s', (kind) => {
  it.skipIf(skipStore(kind))(
    'ends a pass in progress after the checks already asked, not after all of them',
    {
      timeout: 60_000,
    },
    async () => {
      const t = await createTestApp(kind, { config: { dnsServers: zone.servers } });
      try {
        const key = await t.key({ permissions: ['telemetry:write'] });
        const now = t.clock();
        const observations = Array.from({ length: 40 }, (_, i) => ({
          ip: `203.0.113.${100 + i}`,
          bounce_rate: 0.01,
          complaint_rate: 0,
          volume_24h: 500,
          observed_at: new Date(now - 3_600_000).toISOString(),
        }));
        const ingest = await t.app.http.inject({
          method: 'POST',
          url: '/v1/email/telemetry/ingest',
          headers: { 'x-api-key': key },
          payload: { observations },
        });
        expect(ingest.json().data).toMatchObject({ accepted: 40 });
        // 40 lookups that time out, 8 at a time: the whole pass would take five rounds of timeouts.
        const pass = t.app.fcrdns.runOnce();
        await new Promise((r) => setTimeout(r, 200));
        const t0 = performance.now();
        await t.app.fcrdns.stop();
        const stoppedMs = performance.now() - t0;
        const result = await pass;
        expect(result.checked).toBeLessThanOrEqual(8);
        expect(result.stored).toBe(0);
        // One round of timeouts at most (the default DNS timeout and tries), not five.
        expect(stoppedMs).toBeLessThan(15_000);
      } finally {
        await t.close();
      }
    },
  );
});
