/**
 * Examples of the ip operations for /openapi.json, recorded from the real app on the test
 * fixtures (test/helpers) and checked against the route schemas by test/http/openapi.test.ts.
 */
import type { OperationExamples } from '../openapi.ts';

/** 8.8.8.8 as `GET /v1/ip/{ip}` answers it; the batch and public examples are built from it. */
const google = {
  ip: '8.8.8.8',
  prefix: '8.8.8.0/24',
  asn: 15169,
  asn_name: 'Google LLC',
  country: 'US',
  rir: 'ARIN',
  connection_type: 'datacenter',
  bogon: false,
  netrep: {
    is_datacenter: true,
    is_tor_exit: false,
    is_proxy: false,
    is_vpn: false,
    is_residential: false,
    is_mobile: false,
    is_ai_crawler: false,
    cloud_provider: 'Google',
  },
  threat: { score: 5, level: 'low', explanation: ['+5 datacenter network'] },
};

// The batch answer is the lookup's subset (ip, prefix, asn, asn_name, country, netrep, threat).
const { rir: _rir, connection_type: _type, bogon: _bogon, ...googleBatch } = google;

const googleExtended = {
  ...google,
  organization: 'Google LLC',
  provider: 'Google',
  geo_consensus: {
    agreement: 1,
    primary_country: 'US',
    providers: [
      { provider: 'geo-whois-asn-country', country: 'US', city: null },
      { provider: 'asn-country', country: 'US', city: null },
    ],
  },
  geo_stability: { change_count: 0, level: 'stable', last_change: null },
  ownership_timeline: [],
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
  provenance: {
    asn: { sources: ['asn'], dataset_version: 1 },
    asn_name: { sources: ['asn'], dataset_version: 1 },
    prefix: { sources: ['asn'], dataset_version: 1 },
    country: { sources: ['geo-whois-asn-country'], dataset_version: 1 },
    rir: { sources: ['netrep-country-rir'], dataset_version: 1 },
    connection_type: { sources: ['netrep-curated-asns'], dataset_version: 1 },
    'netrep.is_datacenter': { sources: ['netrep-curated-asns'], dataset_version: 1 },
    'netrep.cloud_provider': { sources: ['netrep-curated-asns'], dataset_version: 1 },
  },
};

export const lookupIpPublicExample = {
  response: {
    ...googleExtended,
    // The service scan (issue #34), NETREP_SCAN=on: a result stored within its TTL.
    scan: { status: 'done', scanned_at: '2026-11-26T09:14:03.120Z' },
    service_title: 'Google Public DNS',
    service_server: 'scaffolding on HTTPServer2',
    tls_organization: null,
  },
  meta: { dataset_version: 1 },
} satisfies OperationExamples;

export const lookupIpExample: OperationExamples = {
  response: google,
  meta: { dataset_version: 1, cache_status: 'MISS' },
  extended: { response: googleExtended, meta: { dataset_version: 1, cache_status: 'MISS' } },
};

export const lookupIpBatchExample: OperationExamples = {
  request: { ips: ['8.8.8.8', '1.1.1.1'] },
  response: { '8.8.8.8': googleBatch, '1.1.1.1': null },
  meta: { dataset_version: 1 },
  extended: {
    response: { '8.8.8.8': googleExtended, '1.1.1.1': null },
    meta: { dataset_version: 1 },
  },
};

export const getMyIpExample: OperationExamples = {
  response: { ip: '8.8.8.8', asn: 15169, asn_name: 'Google LLC', country: 'US', organization: 'Google LLC' },
  meta: { dataset_version: 1 },
};
