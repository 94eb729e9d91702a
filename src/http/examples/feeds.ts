/**
 * Examples of the feeds operations for /openapi.json, recorded from the real app on the test
 * fixtures (test/helpers) and checked against the route schemas by test/http/openapi.test.ts.
 */
import type { OperationExamples } from '../openapi.ts';

export const listFeedsExample: OperationExamples = {
  response: {
    feeds: [
      {
        name: 'tor_exits',
        title: 'Tor exit relays',
        description:
          'IP addresses of Tor exit relays, from the Tor Project exit lists (TorDNSEL exit-addresses).',
        tier: 'free',
        license:
          'Tor Project exit-list data, published by The Tor Project as CC0 1.0 public domain data. Free to use and redistribute.',
        entitled: true,
        row_count: 1342,
        generated_at: '2026-06-15T00:10:04.000Z',
        sha256: '9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a',
        formats: ['csv', 'json', 'plain', 'bind', 'nginx', 'caddy', 'iptables', 'cloudflare'],
        download_url: {
          csv: '/v1/feeds/tor_exits/download/csv',
          json: '/v1/feeds/tor_exits/download/json',
          plain: '/v1/feeds/tor_exits/download/plain',
          bind: '/v1/feeds/tor_exits/download/bind',
          nginx: '/v1/feeds/tor_exits/download/nginx',
          caddy: '/v1/feeds/tor_exits/download/caddy',
          iptables: '/v1/feeds/tor_exits/download/iptables',
          cloudflare: '/v1/feeds/tor_exits/download/cloudflare',
        },
      },
    ],
    user_tier: 'pro',
  },
};

export const getFeedManifestExample: OperationExamples = {
  response: {
    feed: 'tor_exits',
    title: 'Tor exit relays',
    tier: 'free',
    license:
      'Tor Project exit-list data, published by The Tor Project as CC0 1.0 public domain data. Free to use and redistribute.',
    generated_at: '2026-06-15T00:10:04.000Z',
    snapshot_date: '2026-06-15',
    row_count: 1342,
    sha256: '9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a',
    dataset_version: 1,
    files: {
      csv: {
        path: '/v1/feeds/tor_exits/download/csv',
        sha256: '9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a9f2c5e1a',
        bytes: 48211,
      },
      json: {
        path: '/v1/feeds/tor_exits/download/json',
        sha256: '0d3b7a440d3b7a440d3b7a440d3b7a440d3b7a440d3b7a440d3b7a440d3b7a44',
        bytes: 61877,
      },
      plain: {
        path: '/v1/feeds/tor_exits/download/plain',
        sha256: '51ce2f9051ce2f9051ce2f9051ce2f9051ce2f9051ce2f9051ce2f9051ce2f90',
        bytes: 19035,
      },
      bind: {
        path: '/v1/feeds/tor_exits/download/bind',
        sha256: 'a8e04c12a8e04c12a8e04c12a8e04c12a8e04c12a8e04c12a8e04c12a8e04c12',
        bytes: 52490,
      },
      nginx: {
        path: '/v1/feeds/tor_exits/download/nginx',
        sha256: '3f71d6b83f71d6b83f71d6b83f71d6b83f71d6b83f71d6b83f71d6b83f71d6b8',
        bytes: 25747,
      },
      caddy: {
        path: '/v1/feeds/tor_exits/download/caddy',
        sha256: 'c2a95e07c2a95e07c2a95e07c2a95e07c2a95e07c2a95e07c2a95e07c2a95e07',
        bytes: 21719,
      },
      iptables: {
        path: '/v1/feeds/tor_exits/download/iptables',
        sha256: '7b18f3d27b18f3d27b18f3d27b18f3d27b18f3d27b18f3d27b18f3d27b18f3d2',
        bytes: 70311,
      },
      cloudflare: {
        path: '/v1/feeds/tor_exits/download/cloudflare',
        sha256: 'e64d0a9ce64d0a9ce64d0a9ce64d0a9ce64d0a9ce64d0a9ce64d0a9ce64d0a9c',
        bytes: 18890,
      },
    },
  },
};

export const downloadFeedExample: OperationExamples = {
  response: null,
  byContentType: { 'text/plain': '185.220.100.240\n185.220.101.1\n2a0b:f4c2::1\n' },
};
