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
    // Names whose AAAA spells loopback, private or metadata space in an IPv4-carrying form.
    'compat.example.test': [{ type: 'AAAA', data: '::127.0.0.1' }],
    'mapped.example.test': [{ type: 'AAAA', data: '::ffff:7f00:1' }],
    'nat64.example.test': [{ type: 'AAAA', data: '64:ff9b::a9fe:a9fe' }],
    'sixtofour.example.test': [{ type: 'AAAA', data: '2002:c0a8:101::1' }],
    'teredo.example.test': [{ type: 'AAAA', data: '2001:0:4136:e378:8000:63bf:80ff:fffe' }],
    'nat64-public.example.test': [{ type: 'AAAA', data: '64:ff9b::5db8:d822' }],
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
    '168.63.129.16',
    '64:ff9b::a83f:8110',
  ])('refuses %s', (a) => {
    expect(refusedAddress(a)).toMatch(/address space/);
  });
  it.each(['93.184.216.34', '2606:4700::1'])('allows public %s', (a) => {
    expect(refusedAddress(a)).toBeNull();
  });

  // Every IPv6 form that carries an IPv4 address is judged by the IPv4 address it reaches.
  it.each([
    ['::7f00:1', 'IPv4-compatible', '127.0.0.1, loopback'],
    ['::a00:1', 'IPv4-compatible', '10.0.0.1, private'],
    ['::808:808', 'IPv4-compatible', 'refused'],
    ['::ffff:0:7f00:1', 'IPv4-translated', '127.0.0.1, loopback'],
    ['64:ff9b::7f00:1', 'NAT64', '127.0.0.1, loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64', '169.254.169.254, linkLocal'],
    ['64:ff9b::c0a8:101', 'NAT64', '192.168.1.1, private'],
    ['64:ff9b:1::7f00:1', 'local-use NAT64', '127.0.0.1, loopback'],
    // /48 reading: 127.0.1.0 in bits 48-63 and 72-87.
    ['64:ff9b:1:7f00:1::', 'local-use NAT64', '127.0.1.0, loopback'],
    // /64 reading: 10.0.0.1 in bits 72-103.
    ['64:ff9b:1:0:a:0:100:0', 'local-use NAT64', '10.0.0.1, private'],
    ['64:ff9b:2::1', 'NAT64 space outside', 'refused'],
    ['2002:7f00:1::1', '6to4', '127.0.0.1, loopback'],
    ['2002:a9fe:a9fe::', '6to4', '169.254.169.254, linkLocal'],
    ['2002:c0a8:101::1', '6to4', '192.168.1.1, private'],
    ['2002:6440:1::1', '6to4', '100.64.0.1, carrierGradeNat'],
    // Teredo: server 65.54.227.120, client 127.0.0.1 (stored inverted: 80ff:fffe).
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo', '127.0.0.1, loopback'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo', '10.0.0.1, private'],
    ['2001:0:a00:1:8000:63bf:a2c7:f7dd', 'Teredo', '10.0.0.1, private'],
    ['2001::1', 'Teredo', '0.0.0.0, unspecified'],
  ])('refuses %s: %s reaching %s', (a, form, reach) => {
    const why = refusedAddress(a);
    expect(why).toContain(form);
    expect(why).toContain(reach);
  });

  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['::ffff:0:0:7f00:1', 'outside the global unicast'],
    ['4000::1', 'outside the global unicast'],
    ['5f00::1', 'segmentRouting'],
  ])('refuses %s (%s)', (a, range) => {
    expect(refusedAddress(a)).toContain(range);
  });

  it.each([
    // NAT64, 6to4 and Teredo forms that reach public IPv4 addresses go where that address is.
    '64:ff9b::5db8:d822',
    '64:ff9b:1::5db8:d822',
    '2002:5db8:d822::1',
    '2001:0:4136:e378:8000:63bf:a247:27dd',
    '::ffff:5db8:d822',
    '2001:4860:4860::8888',
  ])('allows %s (reaches public unicast)', (a) => {
    expect(refusedAddress(a)).toBeNull();
  });
});

describe('resolveTarget: spellings of refused space', () => {
  const check = (url: string) => resolveTarget(url, { resolve, allowPrivate: false });

  // WHATWG URL normalises every IPv4 spelling to a dotted quad and IPv6 to its short form; the
  // guard reads that, then judges the address by what it reaches.
  it.each([
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://127.000.000.001/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1'],
    ['http://\u2460\u2461\u2466.0.0.1/', '127.0.0.1'],
    ['http://0/', '0.0.0.0'],
    ['http://0x0a.0.0.1/', '10.0.0.1'],
    ['http://0300.0250.0.1/', '192.168.0.1'],
    ['http://3232235777/', '192.168.1.1'],
    ['http://0xa9fea9fe/', '169.254.169.254'],
    ['http://[::127.0.0.1]/', '::7f00:1'],
    ['http://[::7f00:1]:8080/', '::7f00:1'],
    ['http://[::ffff:7f00:1]/', '127.0.0.1'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', '127.0.0.1'],
    ['http://[::ffff:169.254.169.254]/', '169.254.169.254'],
    ['http://[::ffff:0:127.0.0.1]/', '::ffff:0:7f00:1'],
    ['http://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1'],
    ['http://[64:ff9b::127.0.0.1]/', '64:ff9b::7f00:1'],
    ['http://[64:ff9b:1::10.0.0.1]/', '64:ff9b:1::a00:1'],
    ['http://[2002:7f00:1::]/', '2002:7f00:1::'],
    ['http://[2002:c0a8:101::1]/', '2002:c0a8:101::1'],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
    ['http://[0000::1]/', '::1'],
    ['http://[::]/', '::'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254'],
    ['http://LOCALHOST./', '127.0.0.1'],
    ['http://compat.example.test/', '::7f00:1'],
    ['http://mapped.example.test/', '127.0.0.1'],
    ['http://nat64.example.test/', '64:ff9b::a9fe:a9fe'],
    ['http://sixtofour.example.test/', '2002:c0a8:101::1'],
    ['http://teredo.example.test/', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
  ])('refuses %s (%s)', async (url, address) => {
    const t = await check(url);
    expect(t.ok).toBe(false);
    if (!t.ok) expect(t.reason).toMatch(new RegExp(`refused: ${address.replace(/[.]/g, '\\.')} is `));
  });

  it('refuses zone ids: WHATWG URL has no syntax for them', async () => {
    for (const url of ['http://[fe80::1%25eth0]/', 'http://[fe80::1%eth0]/', 'http://[::1%251]/']) {
      const t = await check(url);
      expect(t, url).toMatchObject({ ok: false, reason: 'url is not a valid absolute URL' });
    }
  });

  it('allows a name whose AAAA is NAT64 of a public address, and connects to that AAAA', async () => {
    expect(await check('http://nat64-public.example.test/')).toMatchObject({
      ok: true,
      address: '64:ff9b::5db8:d822',
      family: 6,
    });
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
