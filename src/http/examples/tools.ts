/**
 * Examples of the tools operations for /openapi.json, recorded from the real app on the test
 * fixtures (test/helpers) and checked against the route schemas by test/http/openapi.test.ts.
 */
import type { OperationExamples } from '../openapi.ts';

export const checkDomainExample: OperationExamples = {
  response: {
    domain: 'example.com',
    score: 70,
    grade: 'C',
    mx: {
      records: ['mx.example.com'],
      hosts: [{ exchange: 'mx.example.com', preference: 10, addresses: ['192.0.2.1'], resolves: true }],
      null_mx: false,
      is_valid: true,
      errors: [],
    },
    spf: {
      found: true,
      record_count: 1,
      raw: 'v=spf1 ip4:192.0.2.0/24 -all',
      mechanisms: [
        { raw: 'ip4:192.0.2.0/24', qualifier: '+', mechanism: 'ip4', value: '192.0.2.0' },
        { raw: '-all', qualifier: '-', mechanism: 'all', value: null },
      ],
      modifiers: [],
      all_qualifier: '-',
      is_valid: true,
      is_permissive: false,
      validation_errors: [],
      warnings: [],
      dns_lookup_count: 0,
      exceeds_lookups: false,
      void_lookup_count: 0,
      exceeds_void_lookups: false,
      includes: [],
    },
    dkim: [],
    dmarc: {
      found: true,
      raw: 'v=DMARC1; p=reject; rua=mailto:dmarc@example.com',
      version: 'DMARC1',
      policy: 'reject',
      subdomain_policy: 'reject',
      effective_policy: 'reject',
      percentage: 100,
      aggregate_report_uris: ['mailto:dmarc@example.com'],
      forensic_report_uris: [],
      dkim_alignment: 'r',
      spf_alignment: 'r',
      failure_options: '0',
      report_format: 'afrf',
      report_interval: 86400,
      organizational_domain: 'example.com',
      record_domain: 'example.com',
      inherited: false,
      partial_rollout: false,
      no_visibility: false,
      strength_rating: 'strong',
      is_valid: true,
      validation_errors: [],
      warnings: [],
    },
    recommendations: [
      'DKIM: no valid key found at selectors google, default, selector1, selector2, k1, k2, s1, s2, dkim, mail; publish a 2048-bit RSA or ed25519 key (30 points lost).',
    ],
    checked_at: '2026-06-15T12:00:00.000Z',
    dns: {
      lookups: 15,
      max_lookups: 120,
      concurrency: 8,
      deadline_ms: 5000,
      elapsed_ms: 0,
      deadline_exceeded: false,
      budget_exhausted: false,
      errors: { NXDOMAIN: 10, NODATA: 1 },
    },
  },
};

export const analyzeHeadersExample: OperationExamples = {
  request: {
    headers:
      'Received: from mail.example.com (mail.example.com [192.0.2.10]) by mx.example.net with ESMTPS; Mon, 15 Jun 2026 11:59:58 +0000\r\nFrom: Alice <alice@example.com>\r\nTo: bob@example.net\r\nSubject: Hello\r\nDate: Mon, 15 Jun 2026 11:59:57 +0000\r\nMessage-ID: <1@example.com>\r\nAuthentication-Results: mx.example.net; spf=pass smtp.mailfrom=example.com; dkim=pass header.d=example.com; dmarc=pass header.from=example.com\r\n',
  },
  response: {
    received_chain: [
      {
        from_host: 'mail.example.com',
        from_ip: '192.0.2.10',
        by_host: 'mx.example.net',
        protocol: 'ESMTPS',
        protocol_raw: 'ESMTPS',
        timestamp: '2026-06-15T11:59:58Z',
        delay: null,
        delay_seconds: null,
        parsed: true,
        asn: null,
        asn_name: null,
        country: null,
        cloud_provider: null,
        connection_type: null,
        threat_score: null,
      },
    ],
    authentication: {
      spf_result: 'pass',
      dkim_result: 'absent',
      dkim_verdict: 'pass',
      dkim_selector: null,
      dkim_domain: null,
      dmarc_result: 'pass',
      arc_result: null,
      authserv_id: 'mx.example.net',
    },
    infrastructure: {
      origin_ip: '192.0.2.10',
      origin_public_ip: null,
      from_domain: 'example.com',
      return_path_domain: null,
      x_mailer: null,
      user_agent: null,
    },
    anomalies: [],
  },
};
