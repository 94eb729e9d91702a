/**
 * `netrep domain check` when the DNS does not answer (issue 31), against a real zone server on
 * 127.0.0.1 (NETREP_DNS_SERVERS): exit 4 and no grade when none of MX, SPF and DMARC could be
 * read; exit 3, the grade of what was read and "could not check" lines when some could not;
 * exit 0 when every record was read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from '../../test/helpers/cli.ts';
import '../../test/helpers/dns-guard.ts';
import { startZoneServer, type Zone, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { EXIT_DNS_UNAVAILABLE, EXIT_INCOMPLETE, registerDomainCommands } from './domain.ts';

type Failure = 'TIMEOUT' | 'SERVFAIL' | 'REFUSED';

function failing(d: string, kind: Failure): Zone {
  return {
    [d]: [{ type: kind }],
    [`_dmarc.${d}`]: [{ type: kind }],
    [`sel1._domainkey.${d}`]: [{ type: kind }],
  };
}

const ZONE: Zone = {
  'good-mail.com': [
    { type: 'MX', data: { preference: 10, exchange: 'mx.good-mail.com' } },
    { type: 'TXT', data: 'v=spf1 ip4:192.0.2.0/24 -all' },
  ],
  'mx.good-mail.com': [{ type: 'A', data: '192.0.2.1' }],
  '_dmarc.good-mail.com': [{ type: 'TXT', data: 'v=DMARC1; p=reject; rua=mailto:d@good-mail.com' }],
  ...failing('servfail-mail.com', 'SERVFAIL'),
  ...failing('refused-mail.com', 'REFUSED'),
  ...failing('timeout-mail.com', 'TIMEOUT'),
  // MX read; its host's address refused; SPF answers SERVFAIL; DMARC read.
  'part-mail.com': [
    { type: 'MX', data: { preference: 10, exchange: 'mx.part-mail.com' } },
    { type: 'SERVFAIL' },
  ],
  'mx.part-mail.com': [{ type: 'REFUSED' }],
  '_dmarc.part-mail.com': [{ type: 'TXT', data: 'v=DMARC1; p=reject; rua=mailto:d@part-mail.com' }],
};

let zone: ZoneServer;
const saved = process.env.NETREP_DNS_SERVERS;
beforeAll(async () => {
  zone = await startZoneServer(ZONE);
  process.env.NETREP_DNS_SERVERS = zone.servers.join(',');
});
afterAll(async () => {
  if (saved === undefined) delete process.env.NETREP_DNS_SERVERS;
  else process.env.NETREP_DNS_SERVERS = saved;
  await zone.close();
});

const run = (...args: string[]): Promise<CliRun> => runCli([registerDomainCommands], args);

describe('netrep domain check with a resolver that fails', () => {
  it.each([
    ['servfail-mail.com', 'SERVFAIL'],
    ['refused-mail.com', 'REFUSED'],
    ['timeout-mail.com', 'TIMEOUT|DEADLINE'],
  ])(
    '%s: exit 4, "could not check" and the resolver on stderr, no grade',
    async (domain, code) => {
      const r = await run('domain', 'check', domain, '--selector', 'sel1');
      expect(r.code).toBe(EXIT_DNS_UNAVAILABLE);
      expect(r.out).toBe('');
      expect(r.err).toMatch(new RegExp(`^DNS_UNAVAILABLE: Could not check MX, SPF or DMARC of ${domain}`));
      expect(r.err).toContain(`${zone.servers[0]} (NETREP_DNS_SERVERS)`);
      expect(r.err).toMatch(new RegExp(code));
      expect(r.err).not.toMatch(/grade [A-F]/);
      const j = await run('domain', 'check', domain, '--selector', 'sel1', '--json');
      expect(j.code).toBe(EXIT_DNS_UNAVAILABLE);
      const body = JSON.parse(j.out);
      expect(body).toMatchObject({ code: 'DNS_UNAVAILABLE', dns_servers: zone.servers });
      expect(body).not.toHaveProperty('grade');
      expect(body.unchecked).toEqual(
        expect.arrayContaining([expect.objectContaining({ record: 'mx', query: `${domain} MX` })]),
      );
    },
    20_000,
  );

  it('some records unread: exit 3, the grade of what was read, "could not check" for each', async () => {
    const r = await run('domain', 'check', 'part-mail.com', '--selector', 'sel1');
    expect(r.code).toBe(EXIT_INCOMPLETE);
    expect(r.out).toMatch(/^part-mail\.com: grade [A-F] \(score 35\/100\)\n/);
    expect(r.out).toMatch(
      /^incomplete: could not check MX, SPF; the grade counts only the records that could be read$/m,
    );
    expect(r.out).toMatch(/^MX {6}\?\? {4}mx\.part-mail\.com \(10\) could not check its address$/m);
    expect(r.out).toMatch(/^SPF {5}\?\? {4}could not check$/m);
    expect(r.out).toMatch(/^DMARC {3}ok {4}p=reject/m);
    expect(r.out).not.toMatch(/MX: publish|SPF: publish|does not resolve|no v=spf1 record/);
    expect(r.out).toContain(
      `Could not check 3 queries through the resolver ${zone.servers[0]} (NETREP_DNS_SERVERS):`,
    );
    expect(r.out).toMatch(/^ {2}part-mail\.com TXT: SERVFAIL$/m);
    const j = await run('domain', 'check', 'part-mail.com', '--selector', 'sel1', '--json');
    expect(j.code).toBe(EXIT_INCOMPLETE);
    expect(JSON.parse(j.out)).toMatchObject({
      complete: false,
      record_status: { mx: 'temperror', spf: 'temperror', dmarc: 'found' },
    });
  });

  it('every record read: exit 0, complete', async () => {
    const r = await run('domain', 'check', 'good-mail.com', '--selector', 'sel1', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ complete: true, unchecked: [] });
  });
});
