import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnsGuardInstalled } from '../../../test/helpers/dns-guard.ts';
import { startZoneServer, type ZoneServer } from '../../../test/helpers/dns-zone-server.ts';
import { createDnsClient, reverseName } from './client.ts';
import { DnsError, isAbsent, isTransient } from './errors.ts';

let server: ZoneServer;

beforeAll(async () => {
  server = await startZoneServer({
    'example.com': [
      { type: 'TXT', data: 'v=spf1 -all' },
      { type: 'TXT', data: ['part one ', 'part two'] },
      { type: 'MX', data: { preference: 20, exchange: 'MX2.example.com.' } },
      { type: 'MX', data: { preference: 10, exchange: 'mx1.example.com' } },
      { type: 'A', data: '192.0.2.10' },
      { type: 'AAAA', data: '2001:db8::10' },
    ],
    's1._domainkey.example.com': [{ type: 'TXT', data: 'v=DKIM1; p=' }],
    'big.example.com': [{ type: 'TXT', data: 'x'.repeat(3000) }],
    'alias.example.com': [{ type: 'CNAME', data: 'example.com' }],
    'loop1.example.com': [{ type: 'CNAME', data: 'loop2.example.com' }],
    'loop2.example.com': [{ type: 'CNAME', data: 'loop1.example.com' }],
    'hang.example.com': [{ type: 'TIMEOUT' }],
    'ttl.example.com': [{ type: 'A', data: '127.0.0.2', ttl: 42 }],
    'broken.example.com': [{ type: 'SERVFAIL' }],
    'refused.example.com': [{ type: 'REFUSED' }],
    'partial.example.com': [{ type: 'A', data: '192.0.2.1' }, { type: 'TIMEOUT' }],
    '10.2.0.192.in-addr.arpa': [{ type: 'PTR', data: 'host.example.com' }],
    '0.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa': [
      { type: 'PTR', data: 'v6.example.com' },
    ],
  });
});
afterAll(async () => {
  await server.close();
});

const client = () => createDnsClient({ servers: server.servers, timeoutMs: 200, tries: 1 });

async function failure(p: Promise<unknown>): Promise<DnsError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DnsError) return err;
    throw err;
  }
  throw new Error('expected a DnsError');
}

describe('createDnsClient against a loopback authoritative server', () => {
  it('has the guard installed', () => {
    expect(dnsGuardInstalled).toBe(true);
  });

  it('answers TXT with multi-string records intact', async () => {
    const txt = await client().txt('Example.COM.');
    expect(txt.map((r) => r.join('')).sort()).toEqual(['part one part two', 'v=spf1 -all']);
    expect(txt.find((r) => r.length === 2)).toEqual(['part one ', 'part two']);
  });

  it('answers MX with normalized exchanges, A, AAAA and follows CNAME', async () => {
    const c = client();
    const mx = await c.mx('example.com');
    expect(mx.sort((x, y) => x.priority - y.priority)).toEqual([
      { exchange: 'mx1.example.com', priority: 10 },
      { exchange: 'mx2.example.com', priority: 20 },
    ]);
    expect(await c.a('example.com')).toEqual(['192.0.2.10']);
    expect(await c.aaaa('example.com')).toEqual(['2001:db8::10']);
    expect(await c.a('alias.example.com')).toEqual(['192.0.2.10']);
  });

  it('answers A with the TTLs the server gave, and maps its failures the same way', async () => {
    const c = client();
    expect(await c.aWithTtl('TTL.example.com.')).toEqual([{ address: '127.0.0.2', ttl: 42 }]);
    expect((await failure(c.aWithTtl('nothing.example.com'))).code).toBe('NXDOMAIN');
    expect((await failure(c.aWithTtl('hang.example.com'))).code).toBe('TIMEOUT');
  });

  it('does reverse lookups for IPv4 and IPv6', async () => {
    expect(reverseName('2001:db8::10')).toBe(
      '0.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa',
    );
    expect(reverseName('not an ip')).toBeNull();
    const c = client();
    expect(await c.ptr('192.0.2.10')).toEqual(['host.example.com']);
    expect(await c.ptr('2001:db8::10')).toEqual(['v6.example.com']);
    expect((await failure(c.ptr('nonsense'))).code).toBe('BADNAME');
  });

  it('carries answers over 512 bytes through TC and TCP', async () => {
    const txt = await client().txt('big.example.com');
    expect(txt[0]?.join('')).toBe('x'.repeat(3000));
    expect(server.queries.some((q) => q.name === 'big.example.com' && q.transport === 'tcp')).toBe(true);
  });

  it('maps NXDOMAIN, NODATA (also on empty non-terminals), SERVFAIL, REFUSED and TIMEOUT', async () => {
    const c = client();
    expect((await failure(c.txt('nope.example.com'))).code).toBe('NXDOMAIN');
    expect((await failure(c.aaaa('mx1.example.com'))).code).toBe('NXDOMAIN');
    expect((await failure(c.mx('s1._domainkey.example.com'))).code).toBe('NODATA');
    expect((await failure(c.txt('_domainkey.example.com'))).code).toBe('NODATA');
    expect((await failure(c.txt('broken.example.com'))).code).toBe('SERVFAIL');
    expect((await failure(c.txt('refused.example.com'))).code).toBe('REFUSED');
    const timeout = await failure(c.txt('hang.example.com'));
    expect(timeout.code).toBe('TIMEOUT');
    expect(isTransient(timeout)).toBe(true);
    expect(isAbsent(timeout)).toBe(false);
    expect(await c.a('partial.example.com')).toEqual(['192.0.2.1']);
    expect((await failure(c.txt('partial.example.com'))).code).toBe('TIMEOUT');
  });

  it('rejects a CNAME loop and hostile names without hanging', async () => {
    const c = client();
    const loop = await failure(c.a('loop1.example.com'));
    expect(['NODATA', 'SERVFAIL', 'OTHER']).toContain(loop.code);
    expect((await failure(c.txt(''))).code).toBe('BADNAME');
    // c-ares refuses this name; the raw fallback asks the server, which has no such name.
    expect((await failure(c.txt('[192.0.2.1]'))).code).toBe('NXDOMAIN');
    expect((await failure(c.txt(`${'a'.repeat(64)}.example.com`))).code).not.toBe('TIMEOUT');
    expect((await failure(c.txt('x'.repeat(300)))).code).toBe('BADNAME');
  });

  it('refuses bad server entries at creation', () => {
    expect(() => createDnsClient({ servers: ['localhost:53'] })).toThrow(/invalid DNS server/);
    expect(() => createDnsClient({ servers: ['127.0.0.1:99999'] })).toThrow(/invalid DNS server/);
  });

  it('the guard fails a query that would reach the system resolver', async () => {
    const system = createDnsClient({ servers: [] });
    await expect(system.txt('example.com')).rejects.toThrow(/dns-guard/);
    const remote = createDnsClient({ servers: ['192.0.2.53'] });
    await expect(remote.a('example.com')).rejects.toThrow(/dns-guard/);
  });
});
