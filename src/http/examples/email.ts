/**
 * Examples of the email operations for /openapi.json, recorded from the real app on the test
 * fixtures (test/helpers) and checked against the route schemas by test/http/openapi.test.ts.
 */
import type { OperationExamples } from '../openapi.ts';
import { checkDomainExample } from './tools.ts';

export const getEmailReputationExample: OperationExamples = {
  meta: { dataset_version: 1 },
  response: {
    ip: '8.8.8.8',
    score: 65,
    level: 'neutral',
    factors: [
      { name: 'neighbor_reputation', impact: 10, detail: '/24 is clean: 0 active listing(s) in the /24' },
      {
        name: 'geo_instability',
        impact: 0,
        detail: '0 geolocation change(s) over the last 90 days of dataset versions',
      },
      { name: 'datacenter_type', impact: 5, detail: 'datacenter address with no negative reputation signal' },
    ],
    history: [{ score: 65, level: 'neutral', computed_at: '2026-06-15T12:00:00.000Z' }],
    subnet: {
      subnet: '8.8.8.0/24',
      total_ips_seen: 1,
      listed_count: 0,
      avg_reputation: 65,
      worst_score: 65,
      contamination_level: 'clean',
    },
    blocklist: { listed: false },
    fcrdns: null,
  },
};

export const getEmailReputationBatchExample: OperationExamples = {
  meta: { dataset_version: 1 },
  request: { ips: ['8.8.8.8'] },
  response: [{ ip: '8.8.8.8', score: 65, level: 'neutral' }],
};

export const getIpNeighborsExample: OperationExamples = {
  meta: { dataset_version: 1 },
  response: {
    subnet: '8.8.8.0/24',
    total_ips_seen: 1,
    listed_count: 0,
    avg_reputation: 65,
    worst_score: 65,
    contamination_level: 'clean',
  },
};

export const getWarmupExample: OperationExamples = {
  meta: { dataset_version: 1 },
  response: {
    ip: '8.8.8.8',
    status: 'cold',
    days_sending: 0,
    reputation_score: 65,
    recommended_daily_volume: 50,
    auto_pause_recommended: false,
    auto_pause_reason: null,
    next_milestone: '2026-06-22',
    next_milestone_volume: 200,
  },
};

export const classifyPoolExample: OperationExamples = {
  meta: { dataset_version: 1 },
  request: { ips: ['8.8.8.8'] },
  response: [
    {
      ip: '8.8.8.8',
      tier: 'probation',
      reputation_score: 65,
      warmup_status: 'cold',
      listed: false,
      fcrdns_status: 'unknown',
      recommendation: 'Not sending yet: start the warm-up at 50 messages a day.',
    },
  ],
};

export const ingestTelemetryExample: OperationExamples = {
  request: {
    observations: [
      {
        ip: '192.0.2.10',
        bounce_rate: 0.012,
        complaint_rate: 0.0004,
        volume_24h: 25000,
        timestamp: '2026-06-15T11:00:00Z',
      },
    ],
  },
  response: { accepted: 1, rejected: 0, errors: [] },
};

/** The domain DNS route answers the domain check's structure with the score named domain_auth_score. */
export const getDomainDnsExample: OperationExamples = (() => {
  const { score, ...rest } = checkDomainExample.response as { score: number } & Record<string, unknown>;
  return { response: { domain: rest.domain, domain_auth_score: score, ...rest } };
})();

export const checkSpfExample: OperationExamples = {
  response: {
    result: 'pass',
    domain: 'example.com',
    ip: '192.0.2.10',
    sender: 'alice@example.com',
    mechanism: 'ip4:192.0.2.0/24',
    mechanism_domain: 'example.com',
    explanation: null,
    reason: 'example.com matched ip4:192.0.2.0/24',
    dns_lookups: 0,
    void_lookups: 0,
  },
};
