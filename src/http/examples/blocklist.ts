/**
 * Examples of the blocklist operations for /openapi.json, recorded from the real app on the test
 * fixtures (test/helpers) and checked against the route schemas by test/http/openapi.test.ts.
 */
import type { OperationExamples } from '../openapi.ts';

export const checkBlocklistExample: OperationExamples = {
  response: {
    ip: '203.0.113.7',
    listed: true,
    listing: {
      type: 'spam',
      reason: 'spam trap hits',
      return_code: '127.0.0.2',
      listed_at: '2026-06-15T12:00:00.000Z',
      expires_at: null,
    },
  },
};

export const checkBlocklistBatchExample: OperationExamples = {
  request: { ips: ['203.0.113.7', '198.51.100.1'] },
  response: [
    {
      ip: '203.0.113.7',
      listed: true,
      listing: {
        type: 'spam',
        reason: 'spam trap hits',
        return_code: '127.0.0.2',
        listed_at: '2026-06-15T12:00:00.000Z',
        expires_at: null,
      },
    },
    { ip: '198.51.100.1', listed: false },
  ],
};

export const getBlocklistStatsExample: OperationExamples = {
  response: {
    total_active: 1,
    by_type: { spam: 1, malware: 0, phishing: 0 },
    new_listings_24h: 1,
    delistings_24h: 0,
  },
};

export const listBlocklistEventsExample: OperationExamples = {
  response: {
    events: [
      {
        ip: '203.0.113.7',
        action: 'listed',
        type: 'spam',
        reason: 'spam trap hits',
        return_code: '127.0.0.2',
        listed_at: '2026-06-15T12:00:00.000Z',
        performed_at: '2026-06-15T12:00:00.000Z',
        expires_at: null,
      },
    ],
    count: 1,
    limit: 2,
    offset: 0,
  },
};

export const listAddressExample: OperationExamples = {
  request: { ip: '203.0.113.7', type: 'spam', reason: 'spam trap hits' },
  response: {
    ip: '203.0.113.7',
    type: 'spam',
    reason: 'spam trap hits',
    return_code: '127.0.0.2',
    listed_at: '2026-06-15T12:00:00.000Z',
    expires_at: null,
  },
};

export const delistAddressExample: OperationExamples = {
  request: { reason: 'resolved' },
  response: { ip: '203.0.113.7', listed: false },
};
