/**
 * Examples of the asn operations for /openapi.json, recorded from the real app on the test
 * fixtures (test/helpers) and checked against the route schemas by test/http/openapi.test.ts.
 */
import type { OperationExamples } from '../openapi.ts';

export const searchAsnsExample: OperationExamples = {
  response: { results: [{ asn: 15169, name: 'Google LLC', country: 'US', rir: 'ARIN' }], count: 1 },
  meta: { dataset_version: 1 },
};

export const getAsnStatsExample: OperationExamples = {
  response: { total_asns: 7, by_rir: { ARIN: 3, RIPE: 2, APNIC: 1, LACNIC: 1, AFRINIC: 0 } },
  meta: { dataset_version: 1 },
};

export const getAsnExample: OperationExamples = {
  response: {
    asn: 15169,
    name: 'Google LLC',
    country: 'US',
    rir: 'ARIN',
    allocation_date: null,
    prefixes: [
      { prefix: '8.8.8.0/24', country: 'US', is_datacenter: true, threat_score: 5 },
      { prefix: '2a00:1450::/32', country: 'IE', is_datacenter: true, threat_score: 5 },
    ],
    total_prefixes: 2,
  },
  meta: { dataset_version: 1 },
};

export const getPublicAsnExample: OperationExamples = {
  response: {
    asn: 15169,
    name: 'Google LLC',
    country: 'US',
    rir: 'ARIN',
    allocation_date: null,
    asn_reputation: {
      uce_level1: false,
      uce_level2: false,
      uce_level3: false,
      provider_drop: false,
      provider_edrop: false,
      sources: [],
      dataset_versions: {},
      last_checked: '2026-11-24T03:05:36.595Z',
    },
  },
  meta: { dataset_version: 1 },
};
