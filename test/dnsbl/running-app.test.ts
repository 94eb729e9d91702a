/**
 * The DNSBL zone of the running app, queried with `dig` over UDP and TCP (issue 4 "done when"),
 * and a change made through one instance visible in another instance's DNS within one second.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ipToQueryName } from '../../src/dnsbl/index.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { dig, queryUdp } from '../helpers/dnsbl-tools.ts';
import { createTestStore, skipStore, type TestStoreHandle } from '../helpers/stores.ts';

const ZONE = 'bl.netrep.test';
const HOUR = 3_600_000;

function name(ip: string): string {
  const n = ipToQueryName(ip, ZONE);
  if (!n) throw new Error(`not an IP: ${ip}`);
  return n;
}

/** RFC 5782 nibble name of an IPv6 address given as 16 bytes (no IPv4-mapped folding). */
function nibbleName(bytes: number[]): string {
  const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${[...hex].reverse().join('.')}.${ZONE}`;
}

async function waitFor<T>(probe: () => Promise<T>, ok: (v: T) => boolean, limitMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const value = await probe();
    const elapsed = performance.now() - started;
    if (ok(value)) return elapsed;
    if (elapsed > limitMs)
      throw new Error(`condition not met within ${limitMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const rcodeOf = async (port: number, qname: string) =>
  (await queryUdp(port, [{ name: qname, type: 'A' }]))[0]?.rcode;

describe('DNSBL zone of the running app (SQLite)', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('answers listed, unlisted, expired, IPv6 and test-entry names, A and TXT, UDP and TCP', async () => {
    t = await createTestApp('sqlite', { config: { dnsblListen: '127.0.0.1:0', dnsblZone: ZONE } });
    const address = await t.app.listen();
    const port = t.app.dnsbl?.udpPort as number;
    expect(port).toBeGreaterThan(0);
    expect(t.app.dnsbl?.tcpPort).toBe(port);
    const blocklist = t.app.services.blocklist;
    if (!blocklist) throw new Error('no blocklist service');
    const t0 = t.clock();
    await blocklist.list({ ip: '192.0.2.10', type: 'spam', reason: 'snowshoe "spam" run' });
    await blocklist.list({ ip: '2001:db8::5', type: 'malware', reason: 'botnet c2' });
    await blocklist.list({ ip: '198.51.100.77', type: 'phishing', reason: 'kit', expiresAt: t0 + HOUR });
    await blocklist.list({ ip: '203.0.113.9', type: 'spam', reason: 'custom', returnCode: '127.0.0.42' });

    for (const transport of [[], ['+tcp']]) {
      const a = await dig(port, name('192.0.2.10'), 'A', transport);
      expect(a.status).toBe('NOERROR');
      expect(a.flags).toContain('aa');
      expect(a.answers).toEqual([{ name: `${name('192.0.2.10')}.`, ttl: 60, type: 'A', data: '127.0.0.2' }]);
      const txt = await dig(port, name('192.0.2.10'), 'TXT', transport);
      expect(txt.answers).toHaveLength(1);
      expect(txt.answers[0]?.data).toContain('snowshoe \\"spam\\" run');
      expect(txt.answers[0]?.data).toContain(`${address}/tools/blocklist?ip=192.0.2.10`);

      expect((await dig(port, name('203.0.113.9'), 'A', transport)).answers[0]?.data).toBe('127.0.0.42');
      const v6 = await dig(port, name('2001:db8::5'), 'A', transport);
      expect(v6.answers.map((x) => x.data)).toEqual(['127.0.0.3']);
      expect((await dig(port, name('2001:db8::5'), 'TXT', transport)).answers[0]?.data).toContain(
        '/tools/blocklist?ip=2001:db8::5',
      );
      const unlisted = await dig(port, name('192.0.2.11'), 'A', transport);
      expect(unlisted.status).toBe('NXDOMAIN');
      expect(unlisted.flags).toContain('aa');
      expect(unlisted.authority[0]?.type).toBe('SOA');
      expect((await dig(port, name('2001:db8::6'), 'TXT', transport)).status).toBe('NXDOMAIN');
      // RFC 5782 §5 test entries.
      expect((await dig(port, `2.0.0.127.${ZONE}`, 'A', transport)).answers[0]?.data).toBe('127.0.0.2');
      expect((await dig(port, `1.0.0.127.${ZONE}`, 'A', transport)).status).toBe('NXDOMAIN');
      const testV6 = nibbleName([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 127, 0, 0, 2]);
      expect((await dig(port, testV6, 'A', transport)).answers[0]?.data).toBe('127.0.0.2');
      const testV6Off = nibbleName([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 127, 0, 0, 1]);
      expect((await dig(port, testV6Off, 'A', transport)).status).toBe('NXDOMAIN');
      expect((await dig(port, ZONE, 'SOA', transport)).answers[0]?.type).toBe('SOA');
      expect((await dig(port, 'example.org', 'A', transport)).status).toBe('REFUSED');
    }

    // The TXT link is the blocklist page, which says the same to a rejected sender's browser.
    const res = await fetch(`${address}/tools/blocklist?ip=192.0.2.10`);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('<strong>Listed</strong> for spam');

    // Expiry: the listing leaves DNS within a second of its expires_at, without any read or worker.
    expect((await dig(port, name('198.51.100.77'), 'A')).answers[0]?.data).toBe('127.0.0.4');
    t.clock.advance(HOUR);
    const gone = await waitFor(
      () => rcodeOf(port, name('198.51.100.77')),
      (r) => r === 'NXDOMAIN',
      1000,
    );
    expect(gone).toBeLessThan(1000);
    expect((await dig(port, name('198.51.100.77'), 'TXT', ['+tcp'])).status).toBe('NXDOMAIN');

    // Delisting through the admin route leaves DNS at once on this instance.
    const admin = await t.key({ permissions: ['admin'] });
    const del = await t.app.http.inject({
      method: 'DELETE',
      url: '/v1/admin/blocklist/listings/2001:db8::5',
      headers: { 'x-api-key': admin },
    });
    expect(del.statusCode).toBe(200);
    expect((await dig(port, name('2001:db8::5'), 'A')).status).toBe('NXDOMAIN');
  });
  it('the HTTP checks, keyed and public, answer every name as DNS does, RFC 5782 test entries included', async () => {
    t = await createTestApp('sqlite', { config: { dnsblListen: '127.0.0.1:0', dnsblZone: ZONE } });
    const address = await t.app.listen();
    const port = t.app.dnsbl?.udpPort as number;
    await t.app.services.blocklist?.list({ ip: '192.0.2.10', type: 'spam', reason: 'run' });
    const reader = await t.key({ permissions: ['blocklist:read'] });
    const mapped = (last: number) => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 127, 0, 0, last];
    const cases = [
      { ip: '127.0.0.2', qname: name('127.0.0.2'), listed: true },
      { ip: '::FFFF:7F00:2', qname: nibbleName(mapped(2)), listed: true },
      { ip: '127.0.0.1', qname: name('127.0.0.1'), listed: false },
      { ip: '::FFFF:7F00:1', qname: nibbleName(mapped(1)), listed: false },
      { ip: '192.0.2.10', qname: name('192.0.2.10'), listed: true },
      { ip: '192.0.2.11', qname: name('192.0.2.11'), listed: false },
    ];
    const batch: string[] = [];
    for (const c of cases) {
      const a = await dig(port, c.qname, 'A');
      expect(a.status, c.ip).toBe(c.listed ? 'NOERROR' : 'NXDOMAIN');
      // A listed name's TXT carries the link a user follows; it must say the same.
      let url = `${address}/v1/public/blocklist/ip/${encodeURIComponent(c.ip)}`;
      if (c.listed) {
        const txt = (await dig(port, c.qname, 'TXT')).answers[0]?.data ?? '';
        const link = /https?:\/\/[^\s"]+/.exec(txt)?.[0];
        expect(link, txt).toBeDefined();
        // The link is the blocklist page of that address, which a browser reads; the routes agree.
        const page = new URL(link as string);
        expect(page.pathname).toBe('/tools/blocklist');
        expect(await (await fetch(page)).text()).toContain('<strong>Listed</strong>');
        url = `${address}/v1/public/blocklist/ip/${encodeURIComponent(page.searchParams.get('ip') ?? '')}`;
      }
      const pub = (await (await fetch(url)).json()) as { data: { listed: boolean; listing?: unknown } };
      expect(pub.data.listed, url).toBe(c.listed);
      const keyed = await fetch(url.replace('/v1/public/', '/v1/'), { headers: { 'x-api-key': reader } });
      expect(((await keyed.json()) as { data: { listed: boolean } }).data.listed, url).toBe(c.listed);
      batch.push(c.ip);
      if (c.ip === '127.0.0.2')
        expect(pub.data.listing).toMatchObject({ type: 'spam', return_code: '127.0.0.2' });
    }
    const res = await fetch(`${address}/v1/blocklist/check`, {
      method: 'POST',
      headers: { 'x-api-key': reader, 'content-type': 'application/json' },
      body: JSON.stringify({ ips: batch }),
    });
    const answers = ((await res.json()) as { data: { listed: boolean }[] }).data;
    expect(answers.map((x) => x.listed)).toEqual(cases.map((c) => c.listed));
  });
});

describe('DNSBL across instances sharing PostgreSQL', () => {
  let a: TestApp | undefined;
  let b: TestApp | undefined;
  let handle: TestStoreHandle | undefined;
  afterEach(async () => {
    await a?.close();
    await b?.close();
    await handle?.cleanup();
    a = b = handle = undefined;
  });

  it.skipIf(skipStore('postgres'))(
    'a change made through instance A is in instance B’s DNS within one second',
    async () => {
      handle = await createTestStore('postgres');
      const clockStart = new Date().toISOString();
      a = await createTestApp('postgres', { handle, clockStart });
      b = await createTestApp('postgres', {
        handle,
        clockStart,
        config: { dnsblListen: '127.0.0.1:0', dnsblZone: ZONE },
      });
      const port = b.app.dnsbl?.udpPort as number;
      const admin = await a.key({ permissions: ['admin'] });
      const qname = name('192.0.2.200');
      expect(await rcodeOf(port, qname)).toBe('NXDOMAIN');

      const listed = await a.app.http.inject({
        method: 'POST',
        url: '/v1/admin/blocklist/listings',
        headers: { 'x-api-key': admin, 'content-type': 'application/json' },
        payload: JSON.stringify({ ip: '192.0.2.200', type: 'malware', reason: 'seen by A' }),
      });
      expect(listed.statusCode).toBe(200);
      const shown = await waitFor(
        () => rcodeOf(port, qname),
        (r) => r === 'NOERROR',
        1000,
      );
      expect(shown).toBeLessThan(1000);
      const answer = await dig(port, qname, 'TXT', ['+tcp']);
      expect(answer.answers[0]?.data).toContain('seen by A');
      expect(b.app.services.listingFor?.('192.0.2.200')).toEqual({ type: 'malware' });

      const delisted = await a.app.http.inject({
        method: 'DELETE',
        url: '/v1/admin/blocklist/listings/192.0.2.200',
        headers: { 'x-api-key': admin },
      });
      expect(delisted.statusCode).toBe(200);
      const removed = await waitFor(
        () => rcodeOf(port, qname),
        (r) => r === 'NXDOMAIN',
        1000,
      );
      expect(removed).toBeLessThan(1000);
      expect(b.app.services.listingFor?.('192.0.2.200')).toBeNull();
    },
  );
});

describe('a taken DNSBL port', () => {
  it('leaves the HTTP API up with the DNS server off and says why', async () => {
    const { default: dgram } = await import('node:dgram');
    const holder = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => holder.bind(0, '127.0.0.1', resolve));
    const port = holder.address().port;
    const t = await createTestApp('sqlite', { config: { dnsblListen: `127.0.0.1:${port}` } });
    try {
      expect(t.app.dnsbl).toBeNull();
      expect(t.app.dnsblError).toContain('EADDRINUSE');
      expect((await t.app.http.inject({ url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await t.close();
      holder.close();
    }
  });
});
