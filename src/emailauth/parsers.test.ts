import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDkimRecord } from './dkim.ts';
import { dmarcStrength, parseDmarc } from './dmarc.ts';
import { gradeFor } from './score.ts';
import { parseSpf } from './spf-record.ts';

describe('parseSpf', () => {
  it('parses every mechanism and modifier with qualifiers and cidr lengths', () => {
    const r = parseSpf(
      'v=spf1 +a -mx:mail.example.com/24//64 ~ip4:192.0.2.0/24 ?ip6:2001:db8::/32 ptr exists:%{i}.bl.example.com include:_spf.example.net redirect=example.org exp=exp.example.com x-custom=%{d} -all',
    );
    expect(r.errors).toEqual([]);
    expect(r.mechanisms.map((m) => [m.qualifier, m.type, m.value, m.cidr4, m.cidr6])).toEqual([
      ['+', 'a', null, null, null],
      ['-', 'mx', 'mail.example.com', 24, 64],
      ['~', 'ip4', '192.0.2.0', 24, null],
      ['?', 'ip6', '2001:db8::', null, 32],
      ['+', 'ptr', null, null, null],
      ['+', 'exists', '%{i}.bl.example.com', null, null],
      ['+', 'include', '_spf.example.net', null, null],
      ['-', 'all', null, null, null],
    ]);
    expect(r.redirect).toBe('example.org');
    expect(r.exp).toBe('exp.example.com');
    expect(r.modifiers.map((m) => m.name)).toEqual(['redirect', 'exp', 'x-custom']);
  });

  it.each([
    ['v=spf1 -all.', /all/],
    ['v=spf1 ip4:192.0.2.0/33', /prefix length/],
    ['v=spf1 ip4:192.0.2.01', /not an IPv4/],
    ['v=spf1 ip6:192.0.2.1', /not an IPv6/],
    ['v=spf1 include:', /domain-spec/],
    ['v=spf1 a:example', /top label/],
    ['v=spf1 a:foo.123', /top label/],
    ['v=spf1 exists:%{x}.example.com', /macro/],
    ['v=spf1 exists:%{d0}.example.com', /zero labels/],
    ['v=spf1 redirect=a.example.com redirect=b.example.com', /more than once/],
    ['v=spf1 foo', /unknown mechanism/],
    ['v=spf1 a:caf\u00e9.example.com', /US-ASCII/],
    ['v=spf10 -all', /v=spf1/],
  ])('reports the syntax error in %j', (record, pattern) => {
    expect(parseSpf(record).errors.join('\n')).toMatch(pattern);
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const r = parseSpf(`v=spf1 ${s}`);
        expect(Array.isArray(r.errors)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseDmarc', () => {
  it('applies RFC 7489 defaults', () => {
    const r = parseDmarc('v=DMARC1; p=none');
    expect(r).toMatchObject({
      policy: 'none',
      subdomain_policy: null,
      percentage: 100,
      dkim_alignment: 'r',
      spf_alignment: 'r',
      failure_options: '0',
      report_format: 'afrf',
      report_interval: 86400,
      errors: [],
    });
  });

  it('reads rua/ruf lists with size limits and warns about unknown tags', () => {
    const r = parseDmarc(
      'v=DMARC1;p=quarantine;sp=reject;pct=0;rua=mailto:a@example.com!10m, mailto:b@example.net;ruf=mailto:f@example.com;fo=0:d:s;rf=afrf;ri=0;foo=bar;',
    );
    expect(r.errors).toEqual([]);
    expect(r.aggregate_report_uris).toEqual(['mailto:a@example.com!10m', 'mailto:b@example.net']);
    expect(r.percentage).toBe(0);
    expect(r.warnings).toEqual(['unknown tag foo= is ignored']);
  });

  it.each([
    ['p=reject; v=DMARC1', /v=DMARC1 must be the first tag/],
    ['v=DMARC1; rua=mailto:a@example.com', /required tag p= is missing/],
    ['v=DMARC1; p=block', /expected none, quarantine or reject/],
    ['v=DMARC1; p=none; pct=101', /0-100/],
    ['v=DMARC1; p=none; ri=-1', /unsigned/],
    ['v=DMARC1; p=none; fo=2', /fo=/],
    ['v=DMARC1; p=none; sp=all', /sp=/],
    ['v=DMARC1; p=none; rua=', /rua= is empty/],
    ['v=DMARC1; p=none; p=none', /duplicate tag p=/],
    ['v=DMARC2; p=none', /must be DMARC1/],
  ])('reports %j', (record, pattern) => {
    expect(parseDmarc(record).errors.join('\n')).toMatch(pattern);
  });

  it('rates strength per CONTRACT §8', () => {
    expect(dmarcStrength(true, 'reject', 100)).toBe('strong');
    expect(dmarcStrength(true, 'reject', 99)).toBe('moderate');
    expect(dmarcStrength(true, 'quarantine', 100)).toBe('moderate');
    expect(dmarcStrength(true, 'none', 100)).toBe('weak');
    expect(dmarcStrength(false, 'reject', 100)).toBe('weak');
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        expect(Array.isArray(parseDmarc(`v=DMARC1; ${s}`).errors)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseDkimRecord', () => {
  const rsa = (bits: number, type: 'spki' | 'pkcs1' = 'spki') =>
    generateKeyPairSync('rsa', { modulusLength: bits })
      .publicKey.export({ format: 'der', type })
      .toString('base64');

  it('reads RSA key sizes from SPKI and bare PKCS#1 keys', () => {
    expect(parseDkimRecord(`v=DKIM1; k=rsa; p=${rsa(2048)}`)).toMatchObject({
      key_type: 'rsa',
      key_bits: 2048,
      errors: [],
    });
    expect(parseDkimRecord(`p=${rsa(1024, 'pkcs1')}`)).toMatchObject({
      key_type: 'rsa',
      key_bits: 1024,
      errors: [],
    });
  });

  it('rejects RSA keys under 1024 bits (RFC 8301)', () => {
    expect(parseDkimRecord(`p=${rsa(512)}`).errors).toEqual([
      'RSA key of 512 bits is below the 1024-bit minimum (RFC 8301)',
    ]);
  });

  it('reads the RFC 8463 ed25519 example key', () => {
    const r = parseDkimRecord('v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=');
    expect(r).toMatchObject({ key_type: 'ed25519', key_bits: 256, errors: [] });
  });

  it.each([
    ['v=DKIM1; p=', /revoked/],
    ['v=DKIM1; k=dsa; p=AAAA', /unsupported key type/],
    ['v=DKIM1; h=sha1; p=AAAA', /sha256/],
    ['v=DKIM1; s=tlsrpt; p=AAAA', /excludes email/],
    ['k=rsa; v=DKIM1; p=AAAA', /first tag/],
    ['v=DKIM1; p=AAAA; p=BBBB', /duplicate/],
    ['v=DKIM1; k=rsa', /p= is missing/],
    ['v=DKIM1; p=AAAA', /not a valid RSA public key/],
    ['v=DKIM1; k=ed25519; p=AAAA', /not a valid ed25519/],
    ['v=DKIM1; p=@@@@', /not valid base64/],
  ])('reports %j', (record, pattern) => {
    expect(parseDkimRecord(record).errors.join('\n')).toMatch(pattern);
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        expect(Array.isArray(parseDkimRecord(s).errors)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('gradeFor', () => {
  it.each([
    [100, 'A'],
    [90, 'A'],
    [89, 'B'],
    [75, 'B'],
    [74, 'C'],
    [55, 'C'],
    [54, 'D'],
    [35, 'D'],
    [34, 'F'],
    [0, 'F'],
  ])('%i → %s', (score, grade) => {
    expect(gradeFor(score)).toBe(grade);
  });
});
