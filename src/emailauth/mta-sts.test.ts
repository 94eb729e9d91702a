/**
 * MTA-STS, TLS-RPT and BIMI in the domain check (issue 38 item 4), against a real DNS server and
 * a real node:https policy server on 127.0.0.1 whose self-signed certificate the tests trust
 * through the check's `ca` option (verification stays on).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
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
import { checkDomain } from './index.ts';
import type { PolicyFetchOptions } from './mta-sts.ts';
import { mxMatches, parsePolicy, parseStsRecord } from './mta-sts-parse.ts';
import { DomainAuthResultSchema } from './types.ts';

const txt = (data: string): ZoneRecord => ({ type: 'TXT', data });
const LOOP: ZoneRecord = { type: 'A', data: '127.0.0.1' };
const policyText = (mode: string, mx: string[], maxAge = 604800) =>
  `version: STSv1\r\nmode: ${mode}\r\n${mx.map((m) => `mx: ${m}\r\n`).join('')}max_age: ${maxAge}\r\n`;

/** A mail domain with two MX hosts, DMARC `dmarc` and the extra names given. */
function mailZone(d: string, extra: Record<string, ZoneRecord[]>, dmarc = 'v=DMARC1; p=reject'): Zone {
  return {
    [d]: [
      { type: 'MX', data: { preference: 10, exchange: `mx1.${d}` } },
      { type: 'MX', data: { preference: 20, exchange: `mx2.${d}` } },
      txt('v=spf1 -all'),
    ],
    [`mx1.${d}`]: [{ type: 'A', data: '192.0.2.1' }],
    [`mx2.${d}`]: [{ type: 'A', data: '192.0.2.2' }],
    [`_dmarc.${d}`]: [txt(dmarc)],
    ...extra,
  };
}

/** A domain with an STS record and its policy host on 127.0.0.1. */
const stsZone = (d: string, record = 'v=STSv1; id=20261128T0000') =>
  mailZone(d, { [`_mta-sts.${d}`]: [txt(record)], [`mta-sts.${d}`]: [LOOP] });

const ZONE: Zone = {
  ...stsZone('stsok.com'),
  ...stsZone('ststesting.com'),
  ...stsZone('stsmismatch.com'),
  ...stsZone('sts404.com'),
  ...stsZone('stsredirect.com'),
  ...stsZone('stsbig.com'),
  ...stsZone('stsslow.com'),
  ...stsZone('stshtml.com'),
  ...stsZone('stswrongname.com'),
  ...stsZone('stsbadrecord.com', 'v=STSv1; id=2026-11-28; junk'),
  ...mailZone('stsnone.com', { 'mta-sts.stsnone.com': [LOOP] }),
  ...mailZone('stsprivate.com', {
    '_mta-sts.stsprivate.com': [txt('v=STSv1; id=1')],
    'mta-sts.stsprivate.com': [{ type: 'A', data: '10.0.0.7' }],
  }),
  ...mailZone('ststwo.com', {
    '_mta-sts.ststwo.com': [txt('v=STSv1; id=1'), txt('v=STSv1; id=2')],
    'mta-sts.ststwo.com': [LOOP],
  }),
  ...mailZone('rptok.com', {
    '_smtp._tls.rptok.com': [txt('v=TLSRPTv1; rua=mailto:tls@rptok.com, https://r.rptok.com/v1')],
  }),
  ...mailZone('rptbad.com', { '_smtp._tls.rptbad.com': [txt('v=TLSRPTv1; rua=ftp://r.rptbad.com/x; x')] }),
  ...mailZone('rptnorua.com', { '_smtp._tls.rptnorua.com': [txt('v=tlsrptv1;')] }),
  ...mailZone('bimiok.com', {
    'default._bimi.bimiok.com': [txt('v=BIMI1; l=https://bimiok.com/logo.svg; a=https://bimiok.com/vmc.pem')],
  }),
  ...mailZone(
    'biminone.com',
    { 'default._bimi.biminone.com': [txt('v=BIMI1; l=https://biminone.com/logo.svg')] },
    'v=DMARC1; p=none; rua=mailto:d@biminone.com',
  ),
  ...mailZone('bimibad.com', {
    'default._bimi.bimibad.com': [txt('v=BIMI1; l=http://bimibad.com/logo.png')],
  }),
  ...mailZone('bimimissing.com', {}),
  ...mailZone('bimimissingnone.com', {}, 'v=DMARC1; p=none'),
};

/** What each policy host answers; unknown hosts 404. */
const BEHAVIOUR: Record<string, (res: import('node:http').ServerResponse) => void> = {
  'mta-sts.stsok.com': (res) => plain(res, policyText('enforce', ['mx1.stsok.com', '*.stsok.com'])),
  'mta-sts.ststesting.com': (res) => plain(res, policyText('testing', ['*.ststesting.com'])),
  'mta-sts.stsmismatch.com': (res) =>
    plain(res, policyText('enforce', ['mx1.stsmismatch.com', '*.other.com'])),
  'mta-sts.stsredirect.com': (res) => {
    res.writeHead(301, { location: 'https://mta-sts.stsok.com/.well-known/mta-sts.txt' });
    res.end();
  },
  'mta-sts.stsbig.com': (res) =>
    plain(res, `${policyText('enforce', ['*.stsbig.com'])}${'# padding\n'.repeat(7000)}`),
  'mta-sts.stsslow.com': () => {},
  'mta-sts.stshtml.com': (res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(policyText('enforce', ['*.stshtml.com']));
  },
  'mta-sts.stswrongname.com': (res) => plain(res, policyText('enforce', ['*.stswrongname.com'])),
  'mta-sts.stsbadrecord.com': (res) => plain(res, 'version: STSv2\nmode: strict\nmax_age: -1\nnonsense\n'),
};

function plain(res: import('node:http').ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(body);
}

let dnsServer: ZoneServer;
let httpsServer: https.Server;
let port = 0;
let cert = '';
let connections = 0;
const requested: string[] = [];

beforeAll(async () => {
  dnsServer = await startZoneServer(ZONE);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netrep-mta-sts-'));
  // Every policy host but mta-sts.stswrongname.com (its certificate names someone else).
  const names = Object.keys(ZONE).filter((h) => h.startsWith('mta-sts.') && h !== 'mta-sts.stswrongname.com');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'k.pem',
      '-out',
      'c.pem',
      '-days',
      '30',
      '-subj',
      '/CN=netrep mta-sts test',
      '-addext',
      `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`,
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  cert = fs.readFileSync(path.join(dir, 'c.pem'), 'utf8');
  httpsServer = https.createServer({ key: fs.readFileSync(path.join(dir, 'k.pem')), cert }, (req, res) => {
    const host = (req.headers.host ?? '').toLowerCase();
    requested.push(`${host}${req.url}`);
    const behave = req.url === '/.well-known/mta-sts.txt' ? BEHAVIOUR[host] : undefined;
    if (behave) behave(res);
    else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  httpsServer.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => httpsServer.listen(0, '127.0.0.1', resolve));
  port = (httpsServer.address() as { port: number }).port;
});
afterAll(async () => {
  httpsServer.closeAllConnections();
  await new Promise((resolve) => httpsServer.close(resolve));
  await dnsServer.close();
});

const clock = createManualClock('2026-11-28T03:00:00Z');
async function check(domain: string, mtaSts: PolicyFetchOptions = {}) {
  const dns = createDnsClient({ servers: dnsServer.servers, timeoutMs: 300, tries: 1 });
  const options = { allowLoopback: true, ca: cert, port, timeoutMs: 1500, ...mtaSts };
  const result = await checkDomain(domain, {
    dns,
    selectors: ['s1'],
    clock,
    deadlineMs: 1500,
    mtaSts: options,
  });
  expect(Value.Check(DomainAuthResultSchema, result)).toBe(true);
  return result;
}

describe('MTA-STS in the domain check', () => {
  it('reads a valid record and enforce policy that covers every MX host', async () => {
    const r = await check('stsok.com');
    expect(r.mta_sts).toMatchObject({
      status: 'found',
      raw: 'v=STSv1; id=20261128T0000',
      id: '20261128T0000',
      record_valid: true,
      unmatched_mx: [],
      is_valid: true,
      errors: [],
      recommendations: [],
    });
    expect(r.mta_sts.policy).toEqual({
      url: 'https://mta-sts.stsok.com/.well-known/mta-sts.txt',
      address: '127.0.0.1',
      http_status: 200,
      fetched: true,
      version: 'STSv1',
      mode: 'enforce',
      mx: ['mx1.stsok.com', '*.stsok.com'],
      max_age: 604800,
      is_valid: true,
      errors: [],
    });
  });

  it('advises enforce for a testing policy', async () => {
    const r = await check('ststesting.com');
    expect(r.mta_sts.is_valid).toBe(true);
    expect(r.mta_sts.policy?.mode).toBe('testing');
    expect(r.mta_sts.recommendations).toEqual([
      'The MTA-STS policy is in testing mode: once TLS reports show no failures, switch it to mode: enforce.',
    ]);
  });

  it('names MX hosts no mx: pattern matches', async () => {
    const r = await check('stsmismatch.com');
    expect(r.mta_sts.unmatched_mx).toEqual(['mx2.stsmismatch.com']);
    expect(r.mta_sts.is_valid).toBe(false);
    expect(r.mta_sts.errors).toEqual(['MX hosts not matched by any mx: pattern: mx2.stsmismatch.com']);
    expect(r.mta_sts.recommendations[0]).toMatch(/^Add mx: lines for mx2\.stsmismatch\.com/);
  });

  it('without a TXT record fetches nothing and advises publishing', async () => {
    const before = connections;
    const r = await check('stsnone.com');
    expect(r.mta_sts).toMatchObject({ status: 'absent', raw: null, policy: null, is_valid: false });
    expect(r.mta_sts.recommendations[0]).toMatch(
      /^Publish MTA-STS \(RFC 8461\): a TXT record at _mta-sts\.stsnone\.com/,
    );
    expect(connections).toBe(before);
  });

  it('reports a malformed record and a malformed policy field by field', async () => {
    const r = await check('stsbadrecord.com');
    expect(r.mta_sts.record_valid).toBe(false);
    expect(r.mta_sts.errors).toEqual([
      'id= must be 1-32 letters and digits (found "2026-11-28")',
      'malformed field "junk" (expected name=value)',
    ]);
    expect(r.mta_sts.policy?.errors).toEqual([
      'version: must be STSv1 (found "STSv2")',
      'mode: must be enforce, testing or none (found "strict")',
      'max_age: must be an integer 0-31557600 (found "-1")',
      'line 4 is not "key: value"',
      'the policy has no mx: field (required unless mode is none)',
    ]);
    expect(r.mta_sts.is_valid).toBe(false);
    expect(r.mta_sts.recommendations.map((s) => s.slice(0, 30))).toEqual([
      'Fix the TXT record at _mta-sts',
      'Fix the MTA-STS policy at http',
    ]);
  });

  it('two records are no policy', async () => {
    const r = await check('ststwo.com');
    expect(r.mta_sts.errors[0]).toBe('2 v=STSv1 records at _mta-sts.ststwo.com; senders use none of them');
    expect(r.mta_sts.record_valid).toBe(false);
  });

  it('reports a 404, a refused redirect, an oversize policy, a wrong media type', async () => {
    const notFound = await check('sts404.com');
    expect(notFound.mta_sts.policy).toMatchObject({
      fetched: false,
      http_status: 404,
      errors: ['the policy URL answered HTTP 404'],
    });
    const redirect = await check('stsredirect.com');
    expect(redirect.mta_sts.policy?.errors).toEqual([
      'the policy URL answered 301, a redirect to https://mta-sts.stsok.com/.well-known/mta-sts.txt; redirects are not followed (RFC 8461 §3.3)',
    ]);
    expect(requested.filter((r) => r.startsWith('mta-sts.stsok.com')).length).toBe(1);
    const big = await check('stsbig.com');
    expect(big.mta_sts.policy).toMatchObject({
      fetched: false,
      mode: null,
      errors: ['the policy is larger than 65536 bytes (RFC 8461 §3.3 limit)'],
    });
    const html = await check('stshtml.com');
    expect(html.mta_sts.policy?.errors).toEqual([
      'the policy\'s media type is "text/html"; it must be text/plain (RFC 8461 §3.2)',
    ]);
    expect(html.mta_sts.policy?.mode).toBe('enforce');
  });

  it('gives up on a server that never answers at the timeout', async () => {
    const started = performance.now();
    const r = await check('stsslow.com', { timeoutMs: 400 });
    // The 400 ms timeout ends it, not the server (which never answers); room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(4000);
    expect(r.mta_sts.policy?.errors).toEqual([
      'fetching the policy from mta-sts.stsslow.com took over 400 ms',
    ]);
    expect(r.mta_sts.is_valid).toBe(false);
  });

  it('requires a valid certificate for mta-sts.<domain>', async () => {
    const wrong = await check('stswrongname.com');
    expect(wrong.mta_sts.policy?.fetched).toBe(false);
    expect(wrong.mta_sts.policy?.errors[0]).toMatch(
      /^the certificate of mta-sts\.stswrongname\.com is not valid \(ERR_TLS_CERT_ALTNAME_INVALID/,
    );
    const untrusted = await check('stsok.com', { ca: undefined });
    expect(untrusted.mta_sts.policy?.errors[0]).toMatch(
      /^the certificate of mta-sts\.stsok\.com is not valid \(DEPTH_ZERO_SELF_SIGNED_CERT/,
    );
  });

  it('refuses loopback without the test setting and private space always, with no connection', async () => {
    const before = connections;
    const r = await check('stsok.com', { allowLoopback: false });
    expect(r.mta_sts.policy).toMatchObject({
      fetched: false,
      address: null,
      errors: ['fetching the policy from mta-sts.stsok.com refused: 127.0.0.1 is loopback address space'],
    });
    const priv = await check('stsprivate.com');
    expect(priv.mta_sts.policy?.errors).toEqual([
      'fetching the policy from mta-sts.stsprivate.com refused: 10.0.0.7 is private address space',
    ]);
    expect(connections).toBe(before);
  });

  it('leaves the score alone', async () => {
    const [a, b] = [await check('stsok.com'), await check('stsnone.com')];
    expect(a.score).toBe(b.score);
    expect(a.recommendations).toEqual(b.recommendations.map((s) => s.replaceAll('stsnone', 'stsok')));
  });
});

describe('TLS-RPT in the domain check', () => {
  it('reads a valid record', async () => {
    const r = await check('rptok.com');
    expect(r.tls_rpt).toEqual({
      status: 'found',
      record_domain: '_smtp._tls.rptok.com',
      raw: 'v=TLSRPTv1; rua=mailto:tls@rptok.com, https://r.rptok.com/v1',
      rua: ['mailto:tls@rptok.com', 'https://r.rptok.com/v1'],
      is_valid: true,
      errors: [],
      warnings: [],
      recommendations: [],
    });
  });

  it('reports malformed records', async () => {
    const bad = await check('rptbad.com');
    expect(bad.tls_rpt.errors).toEqual([
      'rua= URI "ftp://r.rptbad.com/x" is neither mailto: nor https:',
      'malformed tag "x" (expected name=value)',
    ]);
    expect(bad.tls_rpt.recommendations[0]).toMatch(/^Fix the TLS-RPT record at _smtp\._tls\.rptbad\.com/);
    const noRua = await check('rptnorua.com');
    expect(noRua.tls_rpt.errors).toEqual([
      'the record must begin with exactly "v=TLSRPTv1"',
      'the record has no rua= field',
    ]);
    expect(noRua.tls_rpt.is_valid).toBe(false);
  });

  it('advises publishing when absent', async () => {
    const r = await check('stsok.com');
    expect(r.tls_rpt.status).toBe('absent');
    expect(r.tls_rpt.recommendations[0]).toMatch(/^Publish TLS-RPT \(RFC 8460\)/);
  });
});

describe('BIMI in the domain check', () => {
  it('reads a valid record under DMARC p=reject', async () => {
    const r = await check('bimiok.com');
    expect(r.bimi).toEqual({
      status: 'found',
      record_domain: 'default._bimi.bimiok.com',
      raw: 'v=BIMI1; l=https://bimiok.com/logo.svg; a=https://bimiok.com/vmc.pem',
      logo_url: 'https://bimiok.com/logo.svg',
      authority_url: 'https://bimiok.com/vmc.pem',
      declined: false,
      dmarc_ready: true,
      is_valid: true,
      errors: [],
      warnings: [],
      recommendations: [],
    });
  });

  it('needs DMARC enforcement: p=none makes the record useless', async () => {
    const r = await check('biminone.com');
    expect(r.bimi.dmarc_ready).toBe(false);
    expect(r.bimi.is_valid).toBe(false);
    expect(r.bimi.errors).toEqual([
      'DMARC is not at enforcement (p=quarantine at pct=100 or p=reject); receivers ignore BIMI',
    ]);
    expect(r.bimi.recommendations[0]).toBe(
      'BIMI needs DMARC at enforcement: set p=quarantine (pct=100) or p=reject in _dmarc.biminone.com (now p=none, pct=100).',
    );
  });

  it('reports a non-https logo', async () => {
    const r = await check('bimibad.com');
    expect(r.bimi.errors).toEqual(['l= must be an https: URL (found http:)']);
    expect(r.bimi.is_valid).toBe(false);
  });

  it('missing: advised only once DMARC enforces', async () => {
    const ready = await check('bimimissing.com');
    expect(ready.bimi).toMatchObject({ status: 'absent', dmarc_ready: true, is_valid: false });
    expect(ready.bimi.recommendations[0]).toMatch(/^Publish BIMI/);
    const notReady = await check('bimimissingnone.com');
    expect(notReady.bimi).toMatchObject({ status: 'absent', dmarc_ready: false, recommendations: [] });
  });
});

describe('MTA-STS syntax', () => {
  it('matches mx patterns as RFC 8461 §4.1 says', () => {
    expect(mxMatches('mx1.example.com', '*.example.com')).toBe(true);
    expect(mxMatches('MX1.Example.com.', 'mx1.example.com')).toBe(true);
    expect(mxMatches('a.b.example.com', '*.example.com')).toBe(false);
    expect(mxMatches('example.com', '*.example.com')).toBe(false);
    expect(mxMatches('xexample.com', '*.example.com')).toBe(false);
  });

  it('reads records strictly', () => {
    expect(parseStsRecord('v=STSv1; id=abc123;')).toEqual({ id: 'abc123', errors: [] });
    expect(parseStsRecord('v=STSv1;id=abc123;ext=x-y')).toEqual({ id: 'abc123', errors: [] });
    expect(parseStsRecord('v=stsv1; id=1').errors).toEqual([
      'the record must begin with exactly "v=STSv1" (found "v=stsv1")',
    ]);
    expect(parseStsRecord('v=STSv1').errors).toEqual(['the record has no id= field']);
    expect(parseStsRecord('v=STSv1; id=1; id=2').errors).toEqual(['duplicate field id=']);
    expect(parseStsRecord(`v=STSv1; id=${'a'.repeat(33)}`).errors).toHaveLength(1);
  });

  it('reads policies: LF lines, repeated fields, unknown fields, mode none without mx', () => {
    const p = parsePolicy('version: STSv1\nmode: none\nmax_age: 86400\nmode: enforce\nfoo: bar\n');
    expect(p).toEqual({
      version: 'STSv1',
      mode: 'none',
      mx: [],
      max_age: 86400,
      errors: [],
      warnings: ['mode: appears more than once; the first is used', 'unknown field "foo" ignored'],
    });
    expect(parsePolicy('version: STSv1\nmode: enforce\nmax_age: 31557601\nmx: bad_host\n').errors).toEqual([
      'max_age: must be an integer 0-31557600 (found "31557601")',
      'mx: "bad_host" is not a host name or *.host name pattern',
    ]);
  });
});
