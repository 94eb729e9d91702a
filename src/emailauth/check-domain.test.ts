import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import { Value } from '@sinclair/typebox/value';
import {
  startZoneServer,
  type Zone,
  type ZoneRecord,
  type ZoneServer,
} from '../../test/helpers/dns-zone-server.ts';
import { createManualClock, systemClock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { checkDomain } from './index.ts';
import { DomainAuthResultSchema } from './types.ts';

function rsaKey(bits: number): string {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  return publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
}
function ed25519Key(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  // RFC 8463: p= is the bare 32-byte key (the SPKI DER ends with it).
  return publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
}

const txt = (data: string | string[]): ZoneRecord => ({ type: 'TXT', data });
const KEY_2048 = rsaKey(2048);
const KEY_1024 = rsaKey(1024);
const KEY_ED = ed25519Key();

/** A complete, strict domain; `over` replaces or removes (null) names. */
function domainZone(d: string, over: Record<string, ZoneRecord[] | null> = {}): Zone {
  const base: Zone = {
    [d]: [
      { type: 'MX', data: { preference: 20, exchange: `mx2.${d}` } },
      { type: 'MX', data: { preference: 10, exchange: `mx1.${d}` } },
      txt(`v=spf1 ip4:192.0.2.0/24 include:_spf.${d} -all`),
      txt('google-site-verification=abc'),
    ],
    [`mx1.${d}`]: [{ type: 'A', data: '192.0.2.1' }],
    [`mx2.${d}`]: [{ type: 'AAAA', data: '2001:db8::2' }],
    [`_spf.${d}`]: [txt('v=spf1 ip4:198.51.100.0/24 -all')],
    [`s1._domainkey.${d}`]: [txt(['v=DKIM1; k=rsa; p=', KEY_2048])],
    [`_dmarc.${d}`]: [
      txt(`v=DMARC1; p=reject; rua=mailto:dmarc@${d}; ruf=mailto:f@${d}; adkim=s; aspf=r; fo=1; ri=3600`),
    ],
  };
  for (const [name, records] of Object.entries(over)) {
    if (records === null) delete base[name];
    else base[name] = records;
  }
  return base;
}

function chainZone(): Zone {
  const d = 'chain11.com';
  const includes = Array.from({ length: 11 }, (_, i) => `include:i${i}.${d}`).join(' ');
  const zone = domainZone(d, {
    [d]: [txt(`v=spf1 ${includes} -all`), { type: 'MX', data: { preference: 10, exchange: `mx1.${d}` } }],
  });
  for (let i = 0; i < 11; i++) zone[`i${i}.${d}`] = [txt(`v=spf1 ip4:203.0.113.${i} -all`)];
  return zone;
}

const ZONE: Zone = {
  ...domainZone('good.com'),
  ...domainZone('ed.com', {
    's1._domainkey.ed.com': null,
    'google._domainkey.ed.com': [txt(`v=DKIM1; k=ed25519; p=${KEY_ED}`)],
  }),
  'nothing.com': [{ type: 'A', data: '192.0.2.9' }],
  ...domainZone('nomx.com', { 'nomx.com': [txt('v=spf1 -all')] }),
  ...domainZone('nospf.com', {
    'nospf.com': [{ type: 'MX', data: { preference: 10, exchange: 'mx1.nospf.com' } }],
  }),
  ...domainZone('nodkim.com', { 's1._domainkey.nodkim.com': null }),
  ...domainZone('nodmarc.com', { '_dmarc.nodmarc.com': null }),
  ...domainZone('plusall.com', {
    'plusall.com': [
      txt('v=spf1 +all'),
      { type: 'MX', data: { preference: 10, exchange: 'mx1.plusall.com' } },
    ],
  }),
  ...domainZone('softall.com', {
    'softall.com': [
      txt('v=spf1 mx ~all'),
      { type: 'MX', data: { preference: 10, exchange: 'mx1.softall.com' } },
    ],
  }),
  ...chainZone(),
  ...domainZone('loop.com', {
    'loop.com': [
      txt('v=spf1 include:a.loop.com -all'),
      { type: 'MX', data: { preference: 10, exchange: 'mx1.loop.com' } },
    ],
    'a.loop.com': [txt('v=spf1 include:b.loop.com ~all')],
    'b.loop.com': [txt('v=spf1 include:a.loop.com ~all')],
  }),
  ...domainZone('voids.com', {
    'voids.com': [
      txt('v=spf1 a:nx1.voids.com a:nx2.voids.com mx:nx3.voids.com -all'),
      { type: 'MX', data: { preference: 10, exchange: 'mx1.voids.com' } },
    ],
  }),
  ...domainZone('twospf.com', {
    'twospf.com': [
      txt('v=spf1 -all'),
      txt('v=spf1 ip4:192.0.2.1 -all'),
      { type: 'MX', data: { preference: 10, exchange: 'mx1.twospf.com' } },
    ],
  }),
  ...domainZone('rsa1024.com', { 's1._domainkey.rsa1024.com': [txt(`v=DKIM1; p=${KEY_1024}`)] }),
  ...domainZone('revoked.com', { 's1._domainkey.revoked.com': [txt('v=DKIM1; k=rsa; p=')] }),
  ...domainZone('testing.com', {
    's1._domainkey.testing.com': [txt(`v=DKIM1; t=y:s; s=email; h=sha256; p=${KEY_2048}`)],
  }),
  ...domainZone('badkey.com', { 's1._domainkey.badkey.com': [txt('v=DKIM1; p=not*base64!')] }),
  ...domainZone('orgdmarc.com', {
    '_dmarc.orgdmarc.com': [txt('v=DMARC1; p=reject; sp=quarantine; rua=mailto:d@orgdmarc.com')],
  }),
  'sub.orgdmarc.com': [
    txt('v=spf1 -all'),
    { type: 'MX', data: { preference: 10, exchange: 'mx1.orgdmarc.com' } },
  ],
  ...domainZone('spdiff.com', {
    '_dmarc.spdiff.com': [txt('v=DMARC1; p=reject; sp=none; rua=mailto:d@spdiff.com')],
  }),
  ...domainZone('pct50.com', {
    '_dmarc.pct50.com': [txt('v=DMARC1; p=reject; pct=50; rua=mailto:d@pct50.com')],
  }),
  ...domainZone('norua.com', { '_dmarc.norua.com': [txt('v=DMARC1; p=reject')] }),
  ...domainZone('malformed.com', {
    '_dmarc.malformed.com': [txt('v=DMARC1; p=reject; pct=abc; adkim=x; p=none; garbage; rua=foo@bar')],
  }),
  ...domainZone('nullmx.com', {
    'nullmx.com': [{ type: 'MX', data: { preference: 0, exchange: '.' } }, txt('v=spf1 -all')],
  }),
  ...domainZone('badmx.com', { 'mx1.badmx.com': null, 'mx2.badmx.com': null }),
  'timeout.com': [{ type: 'TIMEOUT' }],
  '_dmarc.timeout.com': [{ type: 'TIMEOUT' }],
  's1._domainkey.timeout.com': [{ type: 'TIMEOUT' }],
  'servfail.com': [{ type: 'SERVFAIL' }],
  '_dmarc.servfail.com': [{ type: 'SERVFAIL' }],
  's1._domainkey.servfail.com': [{ type: 'SERVFAIL' }],
};

let server: ZoneServer;
beforeAll(async () => {
  server = await startZoneServer(ZONE);
});
afterAll(async () => {
  await server.close();
});

const clock = createManualClock('2026-03-01T12:00:00Z');
async function check(domain: string, selectors: string[] = ['s1'], deadlineMs = 1500) {
  const dns = createDnsClient({ servers: server.servers, timeoutMs: 300, tries: 1 });
  const result = await checkDomain(domain, { dns, selectors, clock, deadlineMs });
  expect(Value.Check(DomainAuthResultSchema, result)).toBe(true);
  return result;
}

describe('checkDomain on fixture zones', () => {
  it('grades a complete strict domain A with 100 points and no recommendations', async () => {
    const r = await check('GOOD.com.');
    expect(r.domain).toBe('good.com');
    expect(r.score).toBe(100);
    expect(r.grade).toBe('A');
    expect(r.recommendations).toEqual([]);
    expect(r.mx.records).toEqual(['mx1.good.com', 'mx2.good.com']);
    expect(r.mx.hosts.map((h) => h.addresses)).toEqual([['192.0.2.1'], ['2001:db8::2']]);
    expect(r.spf).toMatchObject({
      found: true,
      all_qualifier: '-',
      is_valid: true,
      is_permissive: false,
      dns_lookup_count: 1,
      exceeds_lookups: false,
      includes: ['_spf.good.com'],
    });
    expect(r.spf.mechanisms.map((m) => m.raw)).toEqual(['ip4:192.0.2.0/24', 'include:_spf.good.com', '-all']);
    // The network keeps its prefix length (issue 19: value was "192.0.2.0").
    expect(r.spf.mechanisms[0]).toEqual({
      raw: 'ip4:192.0.2.0/24',
      qualifier: '+',
      mechanism: 'ip4',
      value: '192.0.2.0/24',
      ip4_cidr_length: 24,
      ip6_cidr_length: null,
    });
    expect(r.spf).toMatchObject({ record_count: 1, status: 'valid' });
    expect(r.dkim).toHaveLength(1);
    expect(r.dkim[0]).toMatchObject({
      selector: 's1',
      found: true,
      key_type: 'rsa',
      key_bits: 2048,
      is_valid: true,
    });
    expect(r.dmarc).toMatchObject({
      found: true,
      version: 'DMARC1',
      policy: 'reject',
      subdomain_policy: 'reject',
      effective_policy: 'reject',
      percentage: 100,
      aggregate_report_uris: ['mailto:dmarc@good.com'],
      forensic_report_uris: ['mailto:f@good.com'],
      dkim_alignment: 's',
      spf_alignment: 'r',
      failure_options: '1',
      report_interval: 3600,
      organizational_domain: 'good.com',
      record_domain: 'good.com',
      inherited: false,
      partial_rollout: false,
      no_visibility: false,
      strength_rating: 'strong',
      is_valid: true,
    });
    expect(r.checked_at).toBe('2026-03-01T12:00:00.000Z');
    expect(r.dns.lookups).toBeGreaterThan(5);
  });

  it('probes the default selectors and returns only found ones; an ed25519 key earns full DKIM points', async () => {
    const dns = createDnsClient({ servers: server.servers, timeoutMs: 300, tries: 1 });
    const r = await checkDomain('ed.com', { dns, clock, deadlineMs: 1500 });
    expect(r.dkim.map((d) => d.selector)).toEqual(['google']);
    expect(r.dkim[0]).toMatchObject({ key_type: 'ed25519', key_bits: 256, is_valid: true });
    expect(r.score).toBe(100);
  });

  it('returns every explicit selector, found or not', async () => {
    const r = await check('good.com', ['nope', 'S1', 's1']);
    expect(r.dkim.map((d) => [d.selector, d.found])).toEqual([
      ['nope', false],
      ['s1', true],
    ]);
    expect(r.dkim[0]).toMatchObject({ raw: null, key_type: null, key_bits: null, validation_errors: [] });
  });

  it('scores a domain with nothing at all F with a recommendation per component', async () => {
    const r = await check('nothing.com');
    expect(r.score).toBe(0);
    expect(r.grade).toBe('F');
    expect(r.mx).toEqual({
      records: [],
      hosts: [],
      null_mx: false,
      is_valid: false,
      errors: ['no MX records at nothing.com'],
    });
    expect(r.spf).toMatchObject({ found: false, record_count: 0, status: 'none' });
    expect(r.dmarc).toMatchObject({
      found: false,
      strength_rating: 'weak',
      no_visibility: true,
      record_domain: null,
    });
    expect(r.recommendations).toHaveLength(4);
    expect(r.recommendations.join('\n')).toMatch(
      /10 points lost[\s\S]*25 points lost[\s\S]*30 points lost[\s\S]*35 points lost/,
    );
  });

  it.each([
    ['nomx.com', 90, 'A', /MX: publish at least one MX record.*10 points lost/],
    ['nospf.com', 75, 'B', /SPF: publish one TXT record.*25 points lost/],
    ['nodkim.com', 70, 'C', /DKIM: no valid key found at selectors s1.*30 points lost/],
    ['nodmarc.com', 65, 'C', /DMARC: publish .*_dmarc.nodmarc.com.*35 points lost/],
  ])('explains a missing record: %s', async (domain, score, grade, pattern) => {
    const r = await check(domain);
    expect(r.score).toBe(score);
    expect(r.grade).toBe(grade);
    expect(r.recommendations).toHaveLength(1);
    expect(r.recommendations[0]).toMatch(pattern);
  });

  it('+all is permissive and earns no SPF points; ~all earns 18', async () => {
    const plus = await check('plusall.com');
    expect(plus.spf).toMatchObject({ is_permissive: true, all_qualifier: '+', is_valid: true });
    expect(plus.score).toBe(75);
    expect(plus.recommendations[0]).toMatch(/\+all.*25 points lost/);
    const soft = await check('softall.com');
    expect(soft.spf).toMatchObject({ is_permissive: false, all_qualifier: '~', dns_lookup_count: 1 });
    expect(soft.score).toBe(93);
    expect(soft.recommendations).toEqual([expect.stringMatching(/~all.*7 points lost/)]);
  });

  it('counts 11 lookups through includes and reports exceeds_lookups', async () => {
    const r = await check('chain11.com');
    expect(r.spf.dns_lookup_count).toBe(11);
    expect(r.spf.exceeds_lookups).toBe(true);
    expect(r.spf.is_valid).toBe(false);
    expect(r.spf.includes).toHaveLength(11);
    expect(r.recommendations.join('\n')).toMatch(
      /11 DNS lookups, over the RFC 7208 limit of 10.*25 points lost/,
    );
  });

  it('finds include loops', async () => {
    const r = await check('loop.com');
    expect(r.spf.is_valid).toBe(false);
    expect(r.spf).toMatchObject({ found: true, record_count: 1, status: 'permerror' });
    expect(r.spf.validation_errors.join('\n')).toMatch(
      /include:a.loop.com loops back to loop.com → a.loop.com → b.loop.com → a.loop.com/,
    );
  });

  it('counts void lookups over the limit of 2', async () => {
    const r = await check('voids.com');
    expect(r.spf).toMatchObject({
      void_lookup_count: 3,
      exceeds_void_lookups: true,
      is_valid: false,
      dns_lookup_count: 3,
    });
  });

  it('rejects two SPF records', async () => {
    const r = await check('twospf.com');
    // Two records exist: found says so, status names the permerror (issue 19: found was false).
    expect(r.spf).toMatchObject({
      found: true,
      record_count: 2,
      status: 'multiple_records',
      is_valid: false,
      raw: 'v=spf1 -all',
    });
    expect(r.spf.validation_errors.join('\n')).toMatch(/2 SPF records.*permerror/);
    expect(r.recommendations.join('\n')).toMatch(/merge the 2 v=spf1 records into one.*25 points lost/);
  });

  it('reads key sizes from the keys: 1024-bit RSA gets 15 DKIM points', async () => {
    const r = await check('rsa1024.com');
    expect(r.dkim[0]).toMatchObject({ key_type: 'rsa', key_bits: 1024, is_valid: true });
    expect(r.score).toBe(85);
    expect(r.recommendations).toEqual([expect.stringMatching(/1024-bit RSA key.*15 points lost/)]);
  });

  it('reports a revoked key, a testing flag and invalid base64', async () => {
    const revoked = await check('revoked.com');
    expect(revoked.dkim[0]).toMatchObject({ found: true, revoked: true, is_valid: false, key_bits: null });
    expect(revoked.score).toBe(70);
    const testing = await check('testing.com');
    expect(testing.dkim[0]).toMatchObject({
      testing: true,
      flags: ['y', 's'],
      service_type: 'email',
      is_valid: true,
    });
    expect(testing.recommendations).toEqual([expect.stringMatching(/t=y \(testing\)/)]);
    const bad = await check('badkey.com');
    expect(bad.dkim[0]?.validation_errors).toEqual(['p= is not valid base64']);
  });

  it('inherits DMARC from the organizational domain and applies sp=', async () => {
    const r = await check('sub.orgdmarc.com', []);
    expect(r.dmarc).toMatchObject({
      found: true,
      inherited: true,
      record_domain: 'orgdmarc.com',
      organizational_domain: 'orgdmarc.com',
      policy: 'reject',
      subdomain_policy: 'quarantine',
      effective_policy: 'quarantine',
      strength_rating: 'moderate',
    });
    expect(r.recommendations.join('\n')).toMatch(/quarantine: move to reject \(10 points lost\)/);
  });

  it('keeps p= for the domain itself when sp differs', async () => {
    const r = await check('spdiff.com');
    expect(r.dmarc).toMatchObject({
      policy: 'reject',
      subdomain_policy: 'none',
      effective_policy: 'reject',
      inherited: false,
    });
    expect(r.score).toBe(100);
  });

  it('pct=50 is a partial rollout worth 25 points; no rua means no visibility', async () => {
    const pct = await check('pct50.com');
    expect(pct.dmarc).toMatchObject({ percentage: 50, partial_rollout: true, strength_rating: 'moderate' });
    expect(pct.score).toBe(90);
    const norua = await check('norua.com');
    expect(norua.dmarc).toMatchObject({
      no_visibility: true,
      aggregate_report_uris: [],
      strength_rating: 'strong',
    });
    expect(norua.score).toBe(100);
    expect(norua.recommendations).toEqual([expect.stringMatching(/no rua= address/)]);
  });

  it('reports malformed and duplicate DMARC tags', async () => {
    const r = await check('malformed.com');
    expect(r.dmarc.is_valid).toBe(false);
    expect(r.dmarc.validation_errors).toEqual([
      'invalid pct= value "abc": expected an integer 0-100',
      'invalid adkim= value "x": expected r or s',
      'duplicate tag p=',
      'malformed tag "garbage" (expected name=value)',
      'rua= URI "foo@bar" is not a valid mailto: address',
    ]);
    expect(r.score).toBe(65);
  });

  it('null MX and unresolvable MX hosts earn no MX points', async () => {
    const nul = await check('nullmx.com');
    expect(nul.mx).toMatchObject({ null_mx: true, is_valid: false, records: [] });
    expect(nul.recommendations[0]).toMatch(/null MX \(RFC 7505\)/);
    const bad = await check('badmx.com');
    expect(bad.mx.errors).toEqual([
      'MX host mx1.badmx.com does not resolve',
      'MX host mx2.badmx.com does not resolve',
    ]);
    expect(bad.score).toBe(90);
  });

  it('reports SERVFAIL in the result instead of throwing', async () => {
    const r = await check('servfail.com');
    expect(r.score).toBe(0);
    expect(r.mx.errors).toEqual(['DNS SERVFAIL while looking up servfail.com MX']);
    expect(r.spf.validation_errors).toEqual(['temperror: DNS SERVFAIL while looking up servfail.com TXT']);
    expect(r.spf).toMatchObject({ found: false, record_count: 0, status: 'temperror' });
    expect(r.dkim[0]?.validation_errors).toEqual([
      'DNS SERVFAIL while looking up s1._domainkey.servfail.com TXT',
    ]);
    expect(r.dmarc.validation_errors[0]).toMatch(/SERVFAIL.*_dmarc.servfail.com/);
    expect(r.recommendations.join('\n')).toMatch(/could not be checked/);
    expect(r.dns.errors['SERVFAIL']).toBeGreaterThanOrEqual(4);
  });

  it('reports timeouts within the configured deadline', async () => {
    const dns = createDnsClient({ servers: server.servers, timeoutMs: 5000, tries: 1 });
    const started = performance.now();
    const r = await checkDomain('timeout.com', {
      dns,
      selectors: ['s1'],
      clock: systemClock,
      deadlineMs: 400,
    });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(1000);
    expect(r.dns.deadline_exceeded).toBe(true);
    expect(r.recommendations[0]).toMatch(/deadline passed/);
    expect(r.spf.validation_errors[0]).toMatch(/DEADLINE/);
    expect(r.score).toBe(0);
  });

  it('rejects names that are not public hostnames', async () => {
    const dns = createDnsClient({ servers: server.servers });
    await expect(checkDomain('localhost', { dns, clock })).rejects.toMatchObject({ code: 'INVALID_DOMAIN' });
    await expect(checkDomain('a..b', { dns, clock })).rejects.toMatchObject({ code: 'INVALID_DOMAIN' });
    await expect(
      checkDomain('good.com', { dns, clock, selectors: Array.from({ length: 21 }, (_, i) => `s${i}`) }),
    ).rejects.toMatchObject({
      code: 'INVALID_PARAMETER',
    });
  });
});

describe('the 5 s deadline of spec §8', () => {
  it('holds with a resolver that never answers (default deadline, 10 s per-query timeout)', async () => {
    const silent = await startZoneServer({ 'hang.com': [{ type: 'TIMEOUT' }] });
    try {
      // Per-query timeout of 10 s: without the deadline every query would wait twice as long.
      const dns = createDnsClient({ servers: silent.servers, timeoutMs: 10_000, tries: 1 });
      const started = performance.now();
      const r = await checkDomain('hang.com', { dns, clock: systemClock });
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(4900);
      expect(elapsed).toBeLessThan(5500);
      expect(r.dns.deadline_exceeded).toBe(true);
      expect(r.grade).toBe('F');
    } finally {
      await silent.close();
    }
  }, 15_000);
});
