/**
 * The domain check page's MTA-STS, TLS-RPT and BIMI sections, rendered from the documented
 * example answer and variants of it (absent, could not check, findings).
 */
import { describe, expect, it } from 'vitest';
import type { DomainAuthResult } from '../emailauth/index.ts';
import { checkDomainExample } from '../http/examples/tools.ts';
import { domainToolPage } from './tool-pages.ts';

const example = checkDomainExample.response as DomainAuthResult;

describe('the domain page sections for MTA-STS, TLS-RPT and BIMI', () => {
  it('shows each record, the policy facts, findings and what to do', () => {
    const html = domainToolPage({ domain: 'example.com', answer: example });
    expect(html).toContain('<h2 id="mta-sts-h">MTA-STS</h2>');
    expect(html).toContain('<h2 id="tls-rpt-h">TLS-RPT</h2>');
    expect(html).toContain('<h2 id="bimi-h">BIMI</h2>');
    expect(html).toContain('MTA-STS, TLS-RPT and BIMI are not part of the grade');
    expect(html).toContain('<code class="record">v=STSv1; id=20260601T000000</code>');
    expect(html).toContain('<code>https://mta-sts.example.com/.well-known/mta-sts.txt</code>');
    expect(html).toContain('<dt>Mode</dt><dd>testing</dd>');
    expect(html).toContain('<dt>MX patterns</dt><dd>mx.example.com</dd>');
    expect(html).toContain('<dt>Fetched</dt><dd>yes (HTTP 200 from 192.0.2.80)</dd>');
    expect(html).toContain(
      '<li>The MTA-STS policy is in testing mode: once TLS reports show no failures, switch it to mode: enforce.</li>',
    );
    expect(html).toContain('<dt>Reports to</dt><dd>mailto:tls-reports@example.com</dd>');
    expect(html).toContain('<p>No BIMI record at default._bimi.example.com.</p>');
    expect(html).toContain('<dt>DMARC at enforcement</dt><dd>yes</dd>');
  });

  it('says could not check for a record the DNS did not answer, and lists errors', () => {
    const answer: DomainAuthResult = {
      ...example,
      mta_sts: {
        ...example.mta_sts,
        status: 'temperror',
        raw: null,
        policy: null,
        recommendations: ['Could not check MTA-STS (DNS failure); retry later.'],
      },
      tls_rpt: { ...example.tls_rpt, is_valid: false, errors: ['rua= is empty'] },
      bimi: {
        ...example.bimi,
        status: 'found',
        raw: 'v=BIMI1; l=',
        declined: true,
        dmarc_ready: false,
        warnings: ['x'],
      },
    };
    const html = domainToolPage({ domain: 'example.com', answer });
    expect(html).toMatch(
      /<h2 id="mta-sts-h">MTA-STS<\/h2><p class="unchecked"><strong>Could not check<\/strong>/,
    );
    expect(html).toContain('<li>Error: rua= is empty</li>');
    expect(html).toContain('<dt>Logo (l=)</dt><dd>declined</dd>');
    expect(html).toContain('<dt>DMARC at enforcement</dt><dd>no</dd>');
    expect(html).toContain('<li>Warning: x</li>');
  });
});
