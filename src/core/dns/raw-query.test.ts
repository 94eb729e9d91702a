import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnsGuardInstalled } from '../../../test/helpers/dns-guard.ts';
import { startZoneServer, type ZoneServer } from '../../../test/helpers/dns-zone-server.ts';
import { createDnsClient } from './client.ts';
import { DnsError } from './errors.ts';
import { rawQuery } from './raw-query.ts';

let server: ZoneServer;

beforeAll(async () => {
  server = await startZoneServer({
    'foo:bar/baz.example.com': [
      { type: 'A', data: '192.0.2.7' },
      { type: 'AAAA', data: '2001:db8::7' },
      { type: 'TXT', data: ['v=spf1 ', '-all'] },
      { type: 'MX', data: { preference: 5, exchange: 'Mail.Example.com' } },
    ],
    'with space.example.com': [{ type: 'TXT', data: 'spaced' }],
    'big:one.example.com': [{ type: 'TXT', data: 'y'.repeat(3000) }],
    'hang:x.example.com': [{ type: 'TIMEOUT' }],
    'broken:x.example.com': [{ type: 'SERVFAIL' }],
    'refused:x.example.com': [{ type: 'REFUSED' }],
    'alias:x.example.com': [{ type: 'CNAME', data: 'target.example.com' }],
    'target.example.com': [{ type: 'A', data: '192.0.2.8' }],
  });
});
afterAll(async () => {
  await server.close();
});

const options = () => ({ servers: server.servers, timeoutMs: 200, tries: 1 });

async function failure(p: Promise<unknown>): Promise<DnsError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DnsError) return err;
    throw err;
  }
  throw new Error('expected a DnsError');
}

describe('raw fallback for names c-ares refuses', () => {
  it('has the guard installed', () => {
    expect(dnsGuardInstalled).toBe(true);
  });

  it('answers every record type for a name with a colon and a slash', async () => {
    expect(await rawQuery('foo:bar/baz.example.com', 'A', options())).toEqual(['192.0.2.7']);
    expect(await rawQuery('foo:bar/baz.example.com', 'AAAA', options())).toEqual(['2001:db8::7']);
    expect(await rawQuery('foo:bar/baz.example.com', 'TXT', options())).toEqual([['v=spf1 ', '-all']]);
    expect(await rawQuery('foo:bar/baz.example.com', 'MX', options())).toEqual([
      { exchange: 'Mail.Example.com', priority: 5 },
    ]);
    expect(await rawQuery('alias:x.example.com', 'A', options())).toEqual(['192.0.2.8']);
  });

  it('goes through the client only when c-ares says EBADNAME', async () => {
    const client = createDnsClient(options());
    const before = server.queries.length;
    expect(await client.txt('With Space.example.com.')).toEqual([['spaced']]);
    expect(await client.mx('foo:bar/baz.example.com')).toEqual([
      { exchange: 'mail.example.com', priority: 5 },
    ]);
    expect(server.queries.slice(before).map((q) => q.name)).toEqual([
      'with space.example.com',
      'foo:bar/baz.example.com',
    ]);
  });

  it('retries a truncated answer over TCP', async () => {
    const before = server.queries.length;
    const txt = await rawQuery('big:one.example.com', 'TXT', options());
    expect(txt[0]?.join('')).toBe('y'.repeat(3000));
    expect(server.queries.slice(before).map((q) => q.transport)).toEqual(['udp', 'tcp']);
  });

  it('maps failures to the client error classes', async () => {
    expect((await failure(rawQuery('none:here.example.com', 'TXT', options()))).code).toBe('NXDOMAIN');
    expect((await failure(rawQuery('with space.example.com', 'A', options()))).code).toBe('NODATA');
    expect((await failure(rawQuery('broken:x.example.com', 'A', options()))).code).toBe('SERVFAIL');
    expect((await failure(rawQuery('refused:x.example.com', 'A', options()))).code).toBe('REFUSED');
    const started = performance.now();
    expect((await failure(rawQuery('hang:x.example.com', 'A', { ...options(), tries: 2 }))).code).toBe(
      'TIMEOUT',
    );
    expect(performance.now() - started).toBeLessThan(1000);
    expect((await failure(rawQuery(`${'a:'.repeat(40)}.example.com`, 'A', options()))).code).toBe('BADNAME');
    expect((await failure(rawQuery(`${'a:b.'.repeat(70)}example.com`, 'A', options()))).code).toBe('BADNAME');
    expect(
      (await failure(rawQuery('x:y.example.com', 'A', { ...options(), servers: ['not a server'] }))).code,
    ).toBe('OTHER');
  });

  it('reports an unreachable server as OTHER at once, not after the timeout', async () => {
    const closed = await startZoneServer({});
    const port = closed.port;
    await closed.close();
    const started = performance.now();
    const err = await failure(
      rawQuery('x:y.example.com', 'A', { servers: [`127.0.0.1:${port}`], timeoutMs: 300, tries: 1 }),
    );
    expect(err.code).toBe('OTHER');
    expect(performance.now() - started).toBeLessThan(250);
  });
});
