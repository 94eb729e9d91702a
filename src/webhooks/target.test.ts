/**
 * The SSRF guard on a real DNS server on 127.0.0.1: every refused target is refused from its
 * address alone, before any connection is tried.
 */
import '../../test/helpers/dns-guard.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { hostResolverOf, parseWebhookUrl, refusedAddress, resolveTarget } from './target.ts';

let zone: ZoneServer;
let resolve: ReturnType<typeof hostResolverOf>;

beforeAll(async () => {
  zone = await startZoneServer({
    'loop.example.test': [{ type: 'A', data: '127.0.0.1' }],
    'meta.example.test': [{ type: 'A', data: '169.254.169.254' }],
    'mixed.example.test': [
      { type: 'A', data: '93.184.216.34' },
      { type: 'AAAA', data: '::1' },
    ],
    'public.example.test': [{ type: 'A', data: '93.184.216.34' }],
  });
  resolve = hostResolverOf(createDnsClient({ servers: zone.servers, timeoutMs: 500, tries: 1 }));
});
afterAll(async () => {
  await zone.close();
});

describe('refusedAddress', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '0.0.0.0',
    '240.0.0.1',
    'fe80::1',
    'fc00::1',
    'ff02::1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
  ])('refuses %s', (a) => {
    expect(refusedAddress(a)).toMatch(/address space/);
  });
  it.each(['93.184.216.34', '2606:4700::1'])('allows public %s', (a) => {
    expect(refusedAddress(a)).toBeNull();
  });
});

describe('resolveTarget', () => {
  const check = (url: string, allowPrivate = false) => resolveTarget(url, { resolve, allowPrivate });

  it.each([
    'http://127.0.0.1/hook',
    'http://10.0.0.1/hook',
    'http://[::1]:8080/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://localhost:9000/',
    'http://api.localhost/',
    'http://loop.example.test/hook',
    'http://meta.example.test/hook',
    'http://mixed.example.test/hook',
  ])('refuses %s with private delivery off', async (url) => {
    const t = await check(url);
    expect(t.ok).toBe(false);
    if (!t.ok) expect(t.reason).toMatch(/refused/);
  });

  it('resolves a public name once and keeps the checked address', async () => {
    const t = await check('https://public.example.test/x?y=1');
    expect(t).toMatchObject({ ok: true, address: '93.184.216.34', family: 4, host: 'public.example.test' });
  });

  it('allows loopback when private delivery is on', async () => {
    expect(await check('http://loop.example.test:8080/', true)).toMatchObject({
      ok: true,
      address: '127.0.0.1',
    });
    expect(await check('http://[::1]:8080/', true)).toMatchObject({ ok: true, address: '::1', family: 6 });
  });

  it('refuses unknown names and malformed URLs', async () => {
    expect((await check('http://nowhere.example.test/')).ok).toBe(false);
    for (const bad of [
      '',
      'not a url',
      'ftp://93.184.216.34/',
      'file:///etc/passwd',
      'http://u:p@93.184.216.34/',
      `https://a.test/${'x'.repeat(3000)}`,
      42,
      null,
    ]) {
      const r = parseWebhookUrl(bad);
      expect(r.ok, String(bad).slice(0, 40)).toBe(false);
    }
  });
});
