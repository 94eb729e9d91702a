/**
 * Example of the many-blocklists check for /openapi.json: the shape the fixture zones of
 * test/helpers/dnsbl-fixture-zones.ts give, with the default lists' names; checked against the
 * route schema by test/http/openapi.test.ts.
 */
import type { OperationExamples } from '../openapi.ts';

const at = '2026-06-15T12:00:00.000Z';

export const checkPublicBlocklistsExample: OperationExamples = {
  response: {
    ip: '192.0.2.99',
    netrep: { zone: 'bl.netrep.test', ip: '192.0.2.99', listed: false },
    zones: [
      {
        zone: 'zen.spamhaus.org',
        name: 'Spamhaus ZEN',
        status: 'refused',
        return_codes: ['127.255.255.254'],
        reason: null,
        detail: 'the list refused the query: made through a public or open resolver (127.255.255.254)',
        delist_url: 'https://check.spamhaus.org/',
        checked_at: at,
        cached: false,
      },
      {
        zone: 'bl.spamcop.net',
        name: 'SpamCop',
        status: 'listed',
        return_codes: ['127.0.0.2'],
        reason: 'Blocked - see https://www.spamcop.net/bl.shtml?192.0.2.99',
        detail: null,
        delist_url: 'https://www.spamcop.net/bl.shtml',
        checked_at: at,
        cached: true,
      },
      {
        zone: 'psbl.surriel.com',
        name: 'PSBL (Passive Spam Block List)',
        status: 'not_listed',
        return_codes: [],
        reason: null,
        detail: null,
        delist_url: 'https://psbl.org/',
        checked_at: at,
        cached: false,
      },
      {
        zone: 'dnsbl-1.uceprotect.net',
        name: 'UCEPROTECT Level 1',
        status: 'unavailable',
        return_codes: [],
        reason: null,
        detail: 'test point 127.0.0.2: no answer in time (TIMEOUT)',
        delist_url: 'https://www.uceprotect.net/en/rblcheck.php',
        checked_at: at,
        cached: false,
      },
    ],
    summary: { listed: 1, not_listed: 1, refused: 1, unavailable: 1, not_checked: 0 },
  },
};
