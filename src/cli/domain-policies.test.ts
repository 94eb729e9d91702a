/**
 * `netrep domain check`'s report lines for MTA-STS, TLS-RPT and BIMI (issue 38), from the
 * documented example answer and variants: a line each with its mark, the problems under it, and
 * their advice apart from the graded recommendations.
 */
import { describe, expect, it } from 'vitest';
import type { DomainAuthResult } from '../emailauth/index.ts';
import { checkDomainExample } from '../http/examples/tools.ts';
import { formatDomainReport } from './domain.ts';

const example = checkDomainExample.response as DomainAuthResult;

describe('netrep domain check: MTA-STS, TLS-RPT and BIMI', () => {
  it('prints one line each and their advice under its own heading', () => {
    const out = formatDomainReport(example);
    expect(out).toContain(
      'MTA-STS ok    id 20260601T000000; mode testing, mx mx.example.com, max_age 604800\n',
    );
    expect(out).toContain('TLS-RPT ok    reports to mailto:tls-reports@example.com\n');
    expect(out).toContain('BIMI    --    no default._bimi record\n');
    expect(out).toContain(
      '\nMTA-STS, TLS-RPT and BIMI (not graded)\n  - The MTA-STS policy is in testing mode: once TLS reports show no failures, switch it to mode: enforce.\n  - Publish BIMI',
    );
  });

  it('marks problems FAIL with each under the line, and a record that could not be read ??', () => {
    const out = formatDomainReport({
      ...example,
      mta_sts: {
        ...example.mta_sts,
        is_valid: false,
        policy: {
          ...(example.mta_sts.policy as NonNullable<DomainAuthResult['mta_sts']['policy']>),
          fetched: false,
          errors: ['the policy URL answered HTTP 404'],
        },
      },
      tls_rpt: { ...example.tls_rpt, status: 'temperror', raw: null },
      bimi: { ...example.bimi, status: 'found', declined: true, errors: ['DMARC is not at enforcement'] },
    });
    expect(out).toContain(
      'MTA-STS FAIL  id 20260601T000000; policy not fetched\n        ! policy: the policy URL answered HTTP 404\n',
    );
    expect(out).toContain('TLS-RPT ??    could not check\n');
    expect(out).toContain('BIMI    FAIL  declined (empty l=)\n        ! DMARC is not at enforcement\n');
  });
});
