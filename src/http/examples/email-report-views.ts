/**
 * Examples of the per-domain report views for /openapi.json (issue #38 item 2), in the shapes
 * the samples of ../shared/data/email/dmarc give; checked against the route schemas by
 * src/http/openapi.test.ts.
 */
import type { OperationExamples } from '../openapi.ts';

const period = { from: '2023-10-16', to: '2023-11-14' };
const dispositions = { none: 5, quarantine: 0, reject: 2, pass: 0 };

export const reportDomainsExample: OperationExamples = {
  response: {
    domains: [
      {
        domain: 'example.com',
        reports: 14,
        aggregate_reports: 12,
        failure_reports: 1,
        tls_reports: 1,
        messages: 137,
        dmarc_pass: 131,
        dmarc_pass_rate: 0.9562,
        first_begin: '2018-01-16T00:00:00.000Z',
        last_end: '2024-03-31T00:00:00.000Z',
      },
    ],
    total: 1,
    limit: 50,
    offset: 0,
  },
};

export const domainSummaryExample: OperationExamples = {
  response: {
    domain: 'example.com',
    period,
    reports: 1,
    messages: 7,
    dmarc_pass: 5,
    dmarc_fail: 2,
    spf_aligned_pass: 5,
    dkim_aligned_pass: 5,
    dispositions,
    dmarc_pass_rate: 0.7143,
    overrides: [{ type: 'other', rows: 1, messages: 2 }],
    policies: [
      {
        adkim: 's',
        aspf: 's',
        p: 'reject',
        sp: 'quarantine',
        np: 'reject',
        pct: null,
        fo: '1',
        testing: 'y',
        discovery_method: 'treewalk',
        reports: 1,
      },
    ],
    reporters: [{ org_name: 'example.net', reports: 1, messages: 7 }],
    daily: [
      { date: '2023-11-13', messages: 0, dmarc_pass: 0 },
      { date: '2023-11-14', messages: 7, dmarc_pass: 5 },
    ],
  },
};

export const domainSourcesExample: OperationExamples = {
  response: {
    domain: 'example.com',
    period,
    group: 'ip',
    sources: [
      {
        ip: '198.51.100.1',
        messages: 5,
        dmarc_pass: 5,
        dmarc_fail: 0,
        spf_aligned_pass: 5,
        dkim_aligned_pass: 5,
        dispositions: { none: 5, quarantine: 0, reject: 0, pass: 0 },
        reporters: ['example.net'],
        asn: 64500,
        asn_name: 'EXAMPLE-MAIL',
        country: 'US',
        connection_type: 'datacenter',
        cloud_provider: null,
        threat_score: 0,
        threat_level: 'low',
        reputation_score: 60,
        reputation_level: 'neutral',
      },
    ],
    total: 2,
    limit: 1,
    offset: 0,
  },
  meta: { dataset_version: 3 },
};

export const domainSourcesCsvExample: OperationExamples = {
  response: null,
  byContentType: {
    'text/csv':
      'ip,messages,dmarc_pass,dmarc_fail,spf_aligned_pass,dkim_aligned_pass,disposition_none,disposition_quarantine,disposition_reject,disposition_pass,reporters,asn,asn_name,country,connection_type,cloud_provider,threat_score,threat_level,reputation_score,reputation_level\r\n' +
      '198.51.100.1,5,5,0,5,5,5,0,0,0,example.net,64500,EXAMPLE-MAIL,US,datacenter,,0,low,60,neutral\r\n',
  },
};

export const domainFailuresExample: OperationExamples = {
  response: {
    domain: 'example.com',
    failures: [
      {
        report: 21,
        org_name: 'example.org',
        received_at: '2026-06-15T12:00:00.000Z',
        source_ip: '203.0.113.68',
        feedback_type: 'text',
        reported_domain: 'example.com',
        arrival_date: null,
        original_mail_from: null,
        original_rcpt_to: null,
        auth_failure: 'dmarc',
        delivery_result: null,
        dkim_domain: null,
        authentication_results: null,
        subject: 'Invoice',
        message_id: null,
      },
    ],
    total: 1,
    limit: 50,
    offset: 0,
  },
};

export const domainTlsExample: OperationExamples = {
  response: {
    domain: 'example.com',
    period: { from: '2023-12-11', to: '2024-01-09' },
    reports: 1,
    successful_sessions: 0,
    failed_sessions: 3,
    policies: [
      {
        policy_type: 'sts',
        policy_strings: ['version: STSv1', 'mode: testing', 'mx: example.com', 'max_age: 86400'],
        mx_hosts: [],
        reports: 1,
        successful_sessions: 0,
        failed_sessions: 3,
      },
    ],
    failures: [
      {
        receiving_mx_hostname: 'example.com',
        result_type: 'validation-failure',
        failed_sessions: 3,
        receiving_ips: ['173.212.201.41'],
        sending_mta_ips: ['209.85.208.176', '209.85.222.201'],
        reporters: ['Example Inc.'],
      },
    ],
  },
};
