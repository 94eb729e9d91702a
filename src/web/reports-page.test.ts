/**
 * The reports pages as strings: everything a report says comes from outside (reporter and ASN
 * names, override reasons, subjects, MX names, rejection reasons), so each hostile value must
 * come out escaped and never as markup; the pass rate is said in words as well as colour.
 */
import { describe, expect, it } from 'vitest';
import type { DomainSources, DomainSummary } from '../reports/index.ts';
import {
  type DomainViews,
  domainLink,
  passRate,
  rejectedReportsPage,
  reportDomainPage,
  reportsPage,
} from './reports-page.ts';

const EVIL = `<script>alert('x')</script>"><img src=x onerror=alert(1)>`;
const LONG = 'x'.repeat(5000);
const viewer = { email: 'a@example.test', role: 'member', csrf: 'tok"en<' };
const ESCAPED = '&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;';

function noMarkupFrom(html: string): void {
  expect(html).not.toContain('<script');
  expect(html).not.toContain('<img');
  expect(html).not.toContain("alert('x')");
  expect(html).not.toContain('tok"en<');
}

const sums = {
  messages: 10,
  dmarc_pass: 7,
  dmarc_fail: 3,
  spf_aligned_pass: 6,
  dkim_aligned_pass: 5,
  dispositions: { none: 8, quarantine: 1, reject: 1, pass: 0 },
};

const summary: DomainSummary = {
  domain: 'example.com',
  period: { from: '2026-05-01', to: '2026-05-03' },
  reports: 2,
  ...sums,
  dmarc_pass_rate: 0.7,
  overrides: [{ type: EVIL, rows: 1, messages: 2 }],
  policies: [
    {
      adkim: EVIL,
      aspf: 'r',
      p: 'reject',
      sp: null,
      np: null,
      pct: 100,
      fo: null,
      testing: null,
      discovery_method: null,
      reports: 2,
    },
  ],
  reporters: [{ org_name: EVIL + LONG, reports: 2, messages: 10 }],
  daily: [
    { date: '2026-05-01', messages: 4, dmarc_pass: 4 },
    { date: '2026-05-02', messages: 0, dmarc_pass: 0 },
    { date: '2026-05-03', messages: 6, dmarc_pass: 3 },
  ],
};

const ipSources: DomainSources = {
  domain: 'example.com',
  period: summary.period,
  group: 'ip',
  sources: [
    {
      ip: '192.0.2.1',
      ...sums,
      reporters: [EVIL],
      asn: 64500,
      asn_name: EVIL,
      country: 'NL',
      connection_type: 'datacenter',
      cloud_provider: EVIL,
      threat_score: 12,
      threat_level: 'low',
      reputation_score: 40,
      reputation_level: 'poor',
    },
  ],
  total: 120,
  limit: 50,
  offset: 50,
};

const views: DomainViews = {
  summary,
  sources: ipSources,
  failures: {
    domain: 'example.com',
    failures: [
      {
        report: 1,
        org_name: EVIL,
        received_at: '2026-05-02T10:00:00.000Z',
        source_ip: '192.0.2.1',
        feedback_type: 'auth-failure',
        reported_domain: 'example.com',
        arrival_date: null,
        original_mail_from: EVIL,
        original_rcpt_to: 'b@example.com',
        auth_failure: 'dmarc',
        delivery_result: null,
        dkim_domain: null,
        authentication_results: EVIL,
        subject: EVIL + LONG,
        message_id: null,
      },
    ],
    total: 1,
    limit: 20,
    offset: 0,
  },
  tls: {
    domain: 'example.com',
    period: summary.period,
    reports: 1,
    successful_sessions: 5,
    failed_sessions: 2,
    policies: [
      {
        policy_type: 'sts',
        policy_strings: [EVIL],
        mx_hosts: [EVIL],
        reports: 1,
        successful_sessions: 5,
        failed_sessions: 2,
      },
    ],
    failures: [
      {
        receiving_mx_hostname: EVIL,
        result_type: EVIL,
        failed_sessions: 2,
        receiving_ips: ['192.0.2.9'],
        sending_mta_ips: [EVIL],
        reporters: [EVIL],
      },
    ],
  },
};

describe('reports pages', () => {
  it('the domains list escapes hostile domains in the text and the link', () => {
    const html = reportsPage({
      viewer,
      domains: [
        {
          domain: EVIL,
          reports: 1,
          aggregate_reports: 1,
          failure_reports: 0,
          tls_reports: 0,
          messages: 3,
          dmarc_pass: 3,
          dmarc_pass_rate: 1,
          first_begin: '2026-05-01T00:00:00.000Z',
          last_end: '2026-05-01T23:59:59.000Z',
        },
      ],
      total: 1,
      outcome: { kind: 'rejected', id: 4, reason: EVIL },
    });
    noMarkupFrom(html);
    expect(html).toContain(`href="/dashboard/reports/${encodeURIComponent(EVIL).replace(/'/g, '&#39;')}"`);
    expect(html).toContain(`>${ESCAPED}</a>`);
    expect(html).toContain(`Rejected: ${ESCAPED}`);
    expect(html).toContain('enctype="multipart/form-data"');
    expect(html).toContain('value="tok&quot;en&lt;"');
    expect(html).toContain('aria-current="page">Reports</a>');
  });

  it('an upload outcome names the report, escaped', () => {
    const report = {
      id: 9,
      kind: 'aggregate' as const,
      org_name: EVIL,
      report_id: EVIL,
      domain: EVIL,
      contact: null,
      begin: '2026-05-01T00:00:00.000Z',
      end: '2026-05-01T23:59:59.000Z',
      record_count: 1,
      message_count: 1234,
      source_format: 'xml',
      received_at: '2026-05-02T00:00:00.000Z',
    };
    for (const kind of ['stored', 'duplicate'] as const) {
      const html = reportsPage({ viewer, domains: [], total: 0, outcome: { kind, report } });
      noMarkupFrom(html);
      expect(html).toContain(
        `report ${ESCAPED} from ${ESCAPED} for ${ESCAPED} (1,234 messages, 2026-05-01 to 2026-05-01)`,
      );
      expect(html).toContain(kind === 'stored' ? 'role="status">Stored: ' : 'Nothing new was written.');
    }
  });

  it('the rejected uploads page escapes the reason and content type', () => {
    const html = rejectedReportsPage({
      viewer,
      rejected: [
        {
          id: 3,
          reason: EVIL,
          content_type: EVIL,
          size: 300_000,
          raw_base64: '',
          raw_truncated: true,
          received_at: '2026-05-02T00:00:00.000Z',
        },
      ],
      total: 1,
    });
    noMarkupFrom(html);
    expect(html.split(ESCAPED)).toHaveLength(3);
    expect(html).toContain('300,000 bytes (first 256 KiB kept)');
  });

  it('the domain page escapes every outside value and keeps long ones wrapping', () => {
    const html = reportDomainPage({
      viewer,
      domain: 'example.com',
      query: { group: 'ip', offset: 50 },
      views,
    });
    noMarkupFrom(html);
    // Overrides, adkim, reporters, asn name, cloud, source reporters, failure org, from, subject,
    // TLS mx hosts, mx, result, sending MTA, reporters: every one escaped.
    expect(html.split(ESCAPED).length - 1).toBeGreaterThanOrEqual(12);
    expect(html).toContain(`${ESCAPED}${LONG}`);
    expect(html).toContain('style="overflow-wrap:anywhere"');
    expect(html).toContain('<strong class="grade-F">70% pass (poor)</strong>');
    expect(html).toContain('<dt>DMARC pass / fail</dt><dd>7 / 3</dd>');
    // Paging: 51-51 of 120, both ways; the CSV link keeps the period, not the page.
    expect(html).toContain('51-51 of 120');
    expect(html).toContain('href="/dashboard/reports/example.com">Previous 50</a>');
    expect(html).toContain('href="/dashboard/reports/example.com?offset=100">Next 50</a>');
    expect(html).toContain('href="/dashboard/reports/example.com/sources.csv">');
    expect(html).toContain('aria-current="page">By address</a>');
  });

  it('a refused period shows the message and the form with what was given, escaped', () => {
    const html = reportDomainPage({
      viewer,
      domain: EVIL,
      query: { from: EVIL, to: '2026-01-01', group: 'organization', offset: 0 },
      error: `from must be a date as YYYY-MM-DD, not ${JSON.stringify(EVIL)}`,
    });
    noMarkupFrom(html);
    expect(html).toContain('role="alert"');
    expect(html).toContain(`value="${ESCAPED}"`);
    expect(html).toContain('<input type="hidden" name="group" value="organization">');
    expect(html).not.toContain('DMARC summary');
  });

  it('says the pass rate in words as well as colour', () => {
    expect(passRate(null)).toContain('no messages');
    expect(passRate(1)).toBe('<strong class="grade-A">100% pass (good)</strong>');
    expect(passRate(0.9345)).toBe('<strong class="grade-C">93.5% pass (fair)</strong>');
    expect(passRate(0.5)).toBe('<strong class="grade-F">50% pass (poor)</strong>');
  });

  it('builds links with the period and grouping, encoded', () => {
    const q = { from: '2026-05-01', to: '2026-05-31', group: 'organization' as const, offset: 100 };
    expect(domainLink('example.com', q)).toBe(
      '/dashboard/reports/example.com?from=2026-05-01&to=2026-05-31&group=organization&offset=100',
    );
    expect(domainLink('example.com', q, { group: 'ip', offset: 0 }, true)).toBe(
      '/dashboard/reports/example.com/sources.csv?from=2026-05-01&to=2026-05-31',
    );
    expect(domainLink('a/b?c', { group: 'ip', offset: 0 })).toBe('/dashboard/reports/a%2Fb%3Fc');
  });
});
