/**
 * Issue 31 at the library level: a record the DNS did not answer (timeout, SERVFAIL, REFUSED,
 * nothing listening) is "could not check" (temperror), never "absent"; the grade counts only what
 * was read, no recommendation advises publishing or fixing a record that could not be read, and
 * every failed query is listed. Real UDP/TCP zone servers on 127.0.0.1, no mocks.
 */

import { generateKeyPairSync } from 'node:crypto';
import dgram from 'node:dgram';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import {
  startZoneServer,
  type Zone,
  type ZoneRecord,
  type ZoneServer,
} from '../../test/helpers/dns-zone-server.ts';
import { createManualClock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { checkDomain, DEFAULT_DKIM_SELECTORS, type DomainAuthResult, dnsUnavailable } from './index.ts';
import { DomainAuthResultSchema } from './types.ts';

const txt = (data: string | string[]): ZoneRecord => ({ type: 'TXT', data });
const KEY = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .publicKey.export({ format: 'der', type: 'spki' })
  .toString('base64');

/** A complete strict domain (grade A, 100 points), each name replaceable. */
function strict(d: string, over: Record<string, ZoneRecord[]> = {}): Zone {
  return {
    [d]: [
      { type: 'MX', data: { preference: 10, exchange: `mx.${d}` } },
      txt(`v=spf1 include:_spf.${d} -all`),
    ],
    [`mx.${d}`]: [{ type: 'A', data: '192.0.2.1' }],
    [`_spf.${d}`]: [txt('v=spf1 ip4:192.0.2.0/24 -all')],
    [`s1._domainkey.${d}`]: [txt(['v=DKIM1; k=rsa; p=', KEY])],
    [`_dmarc.${d}`]: [txt(`v=DMARC1; p=reject; rua=mailto:d@${d}`)],
    ...over,
  };
}

type Failure = 'TIMEOUT' | 'SERVFAIL' | 'REFUSED';
const fail = (kind: Failure): ZoneRecord[] => [{ type: kind }];

/** Every name a default check of `d` asks answers with the failure. */
function allFailing(d: string, kind: Failure): Zone {
  const zone: Zone = { [d]: fail(kind), [`_dmarc.${d}`]: fail(kind) };
  for (const s of [...DEFAULT_DKIM_SELECTORS, 's1']) zone[`${s}._domainkey.${d}`] = fail(kind);
  return zone;
}

const ZONE: Zone = {
  ...strict('good.com'),
  ...allFailing('servfail.com', 'SERVFAIL'),
  ...allFailing('refused.com', 'REFUSED'),
  ...allFailing('timeout.com', 'TIMEOUT'),
  // Some records read, some not.
  ...strict('part.com', {
    'part.com': [{ type: 'MX', data: { preference: 10, exchange: 'mx.part.com' } }, { type: 'SERVFAIL' }],
  }),
  ...strict('inc.com', { '_spf.inc.com': fail('SERVFAIL') }),
  ...strict('mxhost.com', { 'mx.mxhost.com': fail('REFUSED') }),
  ...strict('dkimfail.com', { 's1._domainkey.dkimfail.com': fail('TIMEOUT') }),
  ...strict('org.com', { '_dmarc.org.com': fail('SERVFAIL') }),
  'sub.org.com': [{ type: 'MX', data: { preference: 10, exchange: 'mx.org.com' } }, txt('v=spf1 -all')],
  // A real permerror beside a failed include: the permerror stands.
  ...strict('perm.com', {
    'perm.com': [
      { type: 'MX', data: { preference: 10, exchange: 'mx.perm.com' } },
      txt('v=spf1 include:_spf.perm.com include:nospf.perm.com -all'),
    ],
    '_spf.perm.com': fail('SERVFAIL'),
    'nospf.perm.com': [{ type: 'A', data: '192.0.2.7' }],
  }),
};

let server: ZoneServer;
beforeAll(async () => {
  server = await startZoneServer(ZONE);
});
afterAll(async () => {
  await server.close();
});

const clock = createManualClock('2026-11-27T12:00:00Z');
async function check(domain: string, selectors: string[] = ['s1'], servers = server.servers) {
  const dns = createDnsClient({ servers, timeoutMs: 200, tries: 1 });
  const result = await checkDomain(domain, { dns, selectors, clock, deadlineMs: 2000 });
  expect(Value.Check(DomainAuthResultSchema, result)).toBe(true);
  return result;
}

/** No advice to publish or fix a record of these kinds, and each says "could not check". */
function expectNoAdviceOn(r: DomainAuthResult, records: ('MX' | 'SPF' | 'DKIM' | 'DMARC')[]) {
  const recs = r.recommendations.join('\n');
  for (const record of records) {
    expect(recs).toMatch(new RegExp(`Could not check ${record}`));
    for (const line of r.recommendations.filter(
      (l) => l.startsWith(`${record}:`) || l.startsWith(`${record} `),
    ))
      expect(line).not.toMatch(/publish|fix the record|remove it/i);
  }
}

describe('a complete check', () => {
  it('says complete, every record found, nothing unchecked; the grade is as before', async () => {
    const r = await check('good.com');
    expect(r).toMatchObject({ score: 100, grade: 'A', complete: true, unchecked: [] });
    expect(r.record_status).toEqual({ mx: 'found', spf: 'found', dkim: { s1: 'found' }, dmarc: 'found' });
    expect(dnsUnavailable(r, server.servers)).toBeNull();
  });

  it('absent records are absent, not temperror', async () => {
    const r = await check('nothing-here.com', ['s1', 'nope']);
    expect(r.record_status).toEqual({
      mx: 'absent',
      spf: 'absent',
      dkim: { s1: 'absent', nope: 'absent' },
      dmarc: 'absent',
    });
    expect(r.complete).toBe(true);
    expect(r.recommendations.join('\n')).toMatch(/MX: publish/);
  });
});

describe('a resolver that fails every query', () => {
  it.each([
    ['servfail.com', 'SERVFAIL'],
    ['refused.com', 'REFUSED'],
    ['timeout.com', 'TIMEOUT'],
  ])('%s: every record is temperror, every query listed, DNS_UNAVAILABLE', async (domain, code) => {
    const r = await check(domain, []);
    expect(r.complete).toBe(false);
    expect(r.record_status.mx).toBe('temperror');
    expect(r.record_status.spf).toBe('temperror');
    expect(r.record_status.dmarc).toBe('temperror');
    expect(Object.values(r.record_status.dkim).every((s) => s === 'temperror')).toBe(true);
    expect(Object.keys(r.record_status.dkim)).toEqual([...DEFAULT_DKIM_SELECTORS]);
    const asked = r.unchecked.map((u) => `${u.record} ${u.query}`);
    expect(asked).toEqual(
      expect.arrayContaining([`mx ${domain} MX`, `spf ${domain} TXT`, `dmarc _dmarc.${domain} TXT`]),
    );
    // TIMEOUT may be cut by the deadline (DEADLINE); the others are named as answered.
    for (const u of r.unchecked)
      expect(code === 'TIMEOUT' ? ['TIMEOUT', 'DEADLINE'] : [code]).toContain(u.error);
    expectNoAdviceOn(r, ['MX', 'SPF', 'DKIM', 'DMARC']);
    const err = dnsUnavailable(r, server.servers);
    expect(err).toMatchObject({ code: 'DNS_UNAVAILABLE', status: 503 });
    expect(err?.message).toContain(`Could not check MX, SPF or DMARC of ${domain}`);
    expect(err?.message).toContain(`${server.servers[0]} (NETREP_DNS_SERVERS)`);
    expect(err?.message).toContain(`${domain} MX`);
    expect(err?.meta).toMatchObject({ dns_servers: server.servers, unchecked: r.unchecked });
  });

  it('nothing listening on the resolver port (network error) is could-not-check too', async () => {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const closed = `127.0.0.1:${socket.address().port}`;
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    const r = await check('gmail.com', [], [closed]);
    expect(r.complete).toBe(false);
    expect([r.record_status.mx, r.record_status.spf, r.record_status.dmarc]).toEqual([
      'temperror',
      'temperror',
      'temperror',
    ]);
    expect(r.recommendations.join('\n')).not.toMatch(/No MX|publish/i);
    expect(dnsUnavailable(r, [closed])?.message).toContain(`${closed} (NETREP_DNS_SERVERS)`);
    expect(dnsUnavailable(r, [])?.message).toContain('the system resolvers (NETREP_DNS_SERVERS is unset)');
  });
});

describe('some records could not be read', () => {
  it('SPF unread: graded from MX, DKIM and DMARC, no advice to publish it', async () => {
    const r = await check('part.com');
    expect(r.record_status).toEqual({ mx: 'found', spf: 'temperror', dkim: { s1: 'found' }, dmarc: 'found' });
    expect(r.complete).toBe(false);
    expect(r.unchecked).toEqual([{ record: 'spf', query: 'part.com TXT', error: 'SERVFAIL' }]);
    // MX 10 + DKIM 30 + DMARC 35: SPF earns nothing until it can be read.
    expect(r.score).toBe(75);
    expectNoAdviceOn(r, ['SPF']);
    expect(dnsUnavailable(r, server.servers)).toBeNull();
  });

  it('an SPF include that fails: the record was read, its verdict could not be checked', async () => {
    const r = await check('inc.com');
    expect(r.record_status.spf).toBe('temperror');
    expect(r.spf).toMatchObject({ found: true, status: 'temperror' });
    expect(r.unchecked).toEqual([{ record: 'spf', query: '_spf.inc.com TXT', error: 'SERVFAIL' }]);
    expect(r.recommendations.join('\n')).toMatch(/Could not check SPF \(the record was read/);
    expect(r.recommendations.join('\n')).not.toMatch(/SPF: fix the record/);
  });

  it('a permerror beside a failed include stands (SPF found), the failure is still listed', async () => {
    const r = await check('perm.com');
    expect(r.record_status.spf).toBe('found');
    expect(r.spf.status).toBe('permerror');
    expect(r.unchecked).toEqual([{ record: 'spf', query: '_spf.perm.com TXT', error: 'SERVFAIL' }]);
    const fix = r.recommendations.find((l) => l.startsWith('SPF: fix the record'));
    expect(fix).toMatch(/nospf.perm.com has no SPF record/);
    expect(fix).not.toMatch(/SERVFAIL/);
  });

  it('an MX host whose address lookups are refused: MX could not be checked, not "does not resolve"', async () => {
    const r = await check('mxhost.com');
    expect(r.record_status.mx).toBe('temperror');
    expect(r.mx.errors.join('\n')).not.toMatch(/does not resolve/);
    expect(r.unchecked.map((u) => u.query).sort()).toEqual(['mx.mxhost.com A', 'mx.mxhost.com AAAA']);
    expectNoAdviceOn(r, ['MX']);
    expect(r.score).toBe(90);
  });

  it('a DKIM selector that times out: no advice to publish a key', async () => {
    const r = await check('dkimfail.com');
    expect(r.record_status.dkim).toEqual({ s1: 'temperror' });
    expect(r.recommendations.join('\n')).toMatch(/Could not check DKIM at selector s1/);
    expect(r.recommendations.join('\n')).not.toMatch(/publish a 2048-bit/);
    expect(r.score).toBe(70);
  });

  it('default selectors that fail are listed in record_status and unchecked, not in dkim', async () => {
    const r = await check('refused.com', []);
    expect(r.dkim).toEqual([]);
    expect(r.unchecked.filter((u) => u.record === 'dkim')).toHaveLength(DEFAULT_DKIM_SELECTORS.length);
  });

  it('DMARC at the organizational domain fails: temperror, not "publish"', async () => {
    const r = await check('sub.org.com', []);
    expect(r.record_status.dmarc).toBe('temperror');
    expect(r.unchecked).toContainEqual({ record: 'dmarc', query: '_dmarc.org.com TXT', error: 'SERVFAIL' });
    expectNoAdviceOn(r, ['DMARC']);
  });
});
