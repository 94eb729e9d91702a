/**
 * Every result the headers show (issue 31): each Authentication-Results header with its trust
 * (RFC 8601 §5), every dkim= result and DKIM-Signature, and the ARC chain with its structural
 * faults (RFC 8617 §5.2). Real samples from shared/data/email, and small blocks for the rules.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';
import { createManualClock } from '../core/clock.ts';
import { analyzeHeaders } from './index.ts';

const clock = createManualClock(Date.parse('2026-11-27T00:00:00Z'));
const sample = (name: string) =>
  (readFileSync(sharedDataPath('email', name), 'utf8').split(/\r?\n\r?\n/, 1)[0] as string) + '\n';
const auth = async (headers: string, trustedAuthservIds?: string[]) =>
  (await analyzeHeaders(headers, { clock, trustedAuthservIds })).authentication;

describe('Authentication-Results: every header, trusted by authserv-id', () => {
  const SANITIZE = sample('messages/authmilter-google_apps_good_sanitize.eml');

  it('by default trusts the top-most header and its authserv-id only', async () => {
    const a = await auth(SANITIZE);
    expect(a.trust_source).toBe('topmost');
    expect(a.authentication_results.map((h) => [h.authserv_id, h.trusted])).toEqual([
      ['example.com', true],
      ['notexample.com', false],
      ['mx.example.net', false],
      ['sub.example.com', false],
      ['notmodule', false],
      ['server.example.net', false],
      ['test.module', false],
      ['module', false],
    ]);
    expect(a.authserv_id).toBe('example.com');
    expect(a.authserv_id_trusted).toBe(true);
    // Two dkim= results in each of the eight headers, every one reported.
    expect(a.dkim_results).toHaveLength(16);
    expect(a.dkim_results.filter((d) => d.trusted)).toHaveLength(2);
  });

  it('with NETREP_TRUSTED_AUTHSERV_IDS trusts exactly those ids and summarizes from the top-most trusted', async () => {
    const a = await auth(SANITIZE, ['MX.example.net', 'server.example.net']);
    expect(a.trust_source).toBe('configured');
    expect(a.authentication_results.filter((h) => h.trusted).map((h) => h.authserv_id)).toEqual([
      'mx.example.net',
      'server.example.net',
    ]);
    expect([a.authserv_id, a.authserv_id_trusted]).toEqual(['mx.example.net', true]);
    const none = await auth(SANITIZE, ['none']);
    expect(none.authentication_results.some((h) => h.trusted)).toBe(false);
    expect(none.authserv_id_trusted).toBe(false);
  });

  it('keeps a quoted reason whole and reads a Microsoft 365 header whose authserv-id comes later', async () => {
    const a = await auth(sample('messages/rspamd-arcbad.eml'));
    const dmarc = a.authentication_results[0]?.results.find((r) => r.method === 'dmarc');
    expect(dmarc).toEqual({
      method: 'dmarc',
      result: 'fail',
      reason: 'SPF not aligned (relaxed), DKIM not aligned (relaxed)',
      properties: { 'header.from': 'outlook.com' },
    });
    const m365 = await auth(
      'Authentication-Results: spf=softfail (sender IP is 199.230.200.198)\n smtp.mailfrom=google.com; tenant.mail.onmicrosoft.com; dkim=fail\n (signature did not verify) header.d=google.com\n',
    );
    expect(m365.authentication_results[0]?.authserv_id).toBe('tenant.mail.onmicrosoft.com');
    expect(m365.dkim_results.map((d) => [d.result, d.domain])).toEqual([['fail', 'google.com']]);
  });

  it('lists every DKIM-Signature with its algorithm (RFC 8463 Ed25519 and RSA)', async () => {
    const a = await auth(sample('dkim/rfc8463-ed25519-rsa-signed.eml'));
    expect(a.dkim_signatures).toEqual([
      { domain: 'football.example.com', selector: 'brisbane', algorithm: 'ed25519-sha256' },
      { domain: 'football.example.com', selector: 'test', algorithm: 'rsa-sha256' },
    ]);
    expect(a.dkim_results).toEqual([]);
  });
});

describe('ARC chain', () => {
  it('a sound two-instance chain (Gmail forwarding): its seals, verdict and ARC-Authentication-Results', async () => {
    const a = await auth(sample('messages/mailauth-arc-pass.eml'));
    expect(a.arc.instances).toBe(2);
    expect(a.arc.seals.map((s) => [s.instance, s.cv, s.domain])).toEqual([
      [2, 'pass', 'google.com'],
      [1, 'none', 'google.com'],
    ]);
    expect(a.arc.verdict).toBe('pass');
    expect(a.arc.chain_problem).toBeNull();
    expect(
      a.arc.authentication_results.map((r) => [
        r.instance,
        r.authserv_id,
        r.results.find((x) => x.method === 'arc')?.result,
      ]),
    ).toEqual([
      [2, 'mx.google.com', 'pass'],
      [1, 'mx.google.com', undefined],
    ]);
  });

  const set = (i: number, cv: string, extra = '') =>
    `ARC-Seal: i=${i}; a=rsa-sha256; cv=${cv}; d=example.org; s=s1; b=AAAA${extra}\n` +
    `ARC-Message-Signature: i=${i}; a=rsa-sha256; d=example.org; s=s1; h=from:to; bh=AA; b=BB\n` +
    `ARC-Authentication-Results: i=${i}; mx${i}.example.org; arc=${i === 1 ? 'none' : 'pass'}; dkim=pass header.d=example.com\n`;

  it('names the first structural fault, newest instance first in the lists', async () => {
    const ok = await auth(set(2, 'pass') + set(1, 'none'));
    expect([ok.arc.instances, ok.arc.verdict, ok.arc.chain_problem]).toEqual([2, 'pass', null]);
    expect(ok.arc.authentication_results.map((r) => [r.instance, r.authserv_id])).toEqual([
      [2, 'mx2.example.org'],
      [1, 'mx1.example.org'],
    ]);
    const failed = await auth(set(2, 'fail') + set(1, 'none'));
    expect(failed.arc.verdict).toBe('fail');
    expect(failed.arc.chain_problem).toBe(
      'ARC-Seal i=2 says cv=fail: its sealer found the chain below it broken',
    );
    const gap = await auth(set(3, 'pass') + set(1, 'none'));
    expect(gap.arc.chain_problem).toBe('instance i=2 is missing (the chain goes up to i=3)');
    const first = await auth(set(1, 'pass'));
    expect(first.arc.chain_problem).toBe('ARC-Seal i=1 says cv=pass; the first must say none');
    const sealH = await auth(set(1, 'none', '; h=from'));
    expect(sealH.arc.chain_problem).toBe('ARC-Seal i=1 carries an h= tag, which a seal must not');
    const noAams = await auth(set(1, 'none').split('\n').slice(0, 1).join('\n'));
    expect(noAams.arc.chain_problem).toBe('instance i=1 has no ARC-Message-Signature');
    expect(noAams.arc.seals.map((s) => s.domain)).toEqual(['example.org']);
  });
});
