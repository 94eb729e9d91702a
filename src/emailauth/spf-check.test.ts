import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { createManualClock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { checkHost } from './spf-check.ts';

let server: ZoneServer;
beforeAll(async () => {
  server = await startZoneServer({
    'example.com': [
      { type: 'TXT', data: 'v=spf1 ip4:192.0.2.0/24 include:_spf.example.net -all exp=why.example.com' },
    ],
    '_spf.example.net': [{ type: 'TXT', data: 'v=spf1 ip6:2001:db8::/32 ~all' }],
    'why.example.com': [{ type: 'TXT', data: '%{i} may not send for %{d} (%{L})' }],
    'hang.example.com': [{ type: 'TIMEOUT' }],
  });
});
afterAll(async () => {
  await server.close();
});

const opts = () => ({
  dns: createDnsClient({ servers: server.servers, timeoutMs: 150, tries: 1 }),
  clock: createManualClock(),
  helo: 'mta.example.org',
});

describe('checkHost', () => {
  it('names the deciding term and its domain', async () => {
    const pass = await checkHost('192.0.2.7', 'example.com', 'a@example.com', opts());
    expect(pass).toMatchObject({
      result: 'pass',
      mechanism: 'ip4:192.0.2.0/24',
      mechanism_domain: 'example.com',
      dns_lookups: 0,
    });
    const inc = await checkHost('2001:db8::1', 'example.com', 'a@example.com', opts());
    expect(inc).toMatchObject({ result: 'pass', mechanism: 'include:_spf.example.net', dns_lookups: 1 });
  });

  it('expands exp= on fail with macros', async () => {
    const fail = await checkHost('198.51.100.1', 'Example.COM', 'Jo+X@example.com', opts());
    expect(fail).toMatchObject({ result: 'fail', mechanism: '-all' });
    expect(fail.explanation).toBe('198.51.100.1 may not send for example.com (Jo%2BX)');
  });

  it('handles hostile and empty input without throwing', async () => {
    expect((await checkHost('not-an-ip', 'example.com', '', opts())).result).toBe('permerror');
    expect((await checkHost('192.0.2.1', '', '', opts())).result).toBe('none');
    expect((await checkHost('192.0.2.1', 'a..example.com', '', opts())).result).toBe('none');
    expect((await checkHost('192.0.2.1', `${'a'.repeat(64)}.com`, '', opts())).result).toBe('none');
    expect(
      (await checkHost('192.0.2.1', 'nowhere.example.com', 'x@nowhere.example.com', opts())).result,
    ).toBe('none');
    const noLocal = await checkHost('192.0.2.1', 'example.com', '@example.com', opts());
    expect(noLocal.sender).toBe('postmaster@example.com');
  });

  it('returns temperror when the domain does not answer', async () => {
    const r = await checkHost('192.0.2.1', 'hang.example.com', '', opts());
    expect(r.result).toBe('temperror');
    expect(r.reason).toMatch(/TIMEOUT/);
  });
});
