/**
 * Public-DNSBL fixtures for the many-blocklists check (issue 36 item 6), served by
 * test/helpers/dns-zone-server.ts on 127.0.0.1: one zone per way a real list answers.
 *
 * - listing.test: passes the RFC 5782 test points and lists LISTED_IP (127.0.0.4, TTL 120 s, a TXT reason)
 * - clean.test: passes the test points, lists nothing else
 * - refusing.test: answers every query 127.255.255.254 (Spamhaus: "query through a public resolver")
 * - excessive.test: passes the test points, refuses LISTED_IP with 127.255.255.255 ("excessive queries")
 * - slow.test: never answers
 * - broken.test: lists 127.0.0.1 as well as 127.0.0.2 (a dead list that answers everything)
 */
import type { Zone, ZoneRecord } from './dns-zone-server.ts';

export const LISTED_IP = '192.0.2.99';
export const LISTED_REASON = 'Listed for spam trap hits, see https://listing.test/192.0.2.99';
export const FIXTURE_ZONES = [
  'listing.test',
  'clean.test',
  'refusing.test',
  'excessive.test',
  'slow.test',
  'broken.test',
] as const;

const a = (data: string, ttl = 300): ZoneRecord => ({ type: 'A', data, ttl });
const TEST_POINT = '2.0.0.127';
const NEVER_LISTED = '1.0.0.127';
const LISTED = '99.2.0.192';

export function dnsblFixtureZones(): Zone {
  return {
    [`${TEST_POINT}.listing.test`]: [a('127.0.0.2'), { type: 'TXT', data: 'RFC 5782 test point' }],
    [`${LISTED}.listing.test`]: [a('127.0.0.4', 120), { type: 'TXT', data: LISTED_REASON }],
    [`${TEST_POINT}.clean.test`]: [a('127.0.0.2')],
    [`${TEST_POINT}.refusing.test`]: [a('127.255.255.254')],
    [`${NEVER_LISTED}.refusing.test`]: [a('127.255.255.254')],
    [`${LISTED}.refusing.test`]: [a('127.255.255.254')],
    [`${TEST_POINT}.excessive.test`]: [a('127.0.0.2')],
    [`${LISTED}.excessive.test`]: [a('127.255.255.255')],
    [`${TEST_POINT}.slow.test`]: [{ type: 'TIMEOUT' }],
    [`${NEVER_LISTED}.slow.test`]: [{ type: 'TIMEOUT' }],
    [`${LISTED}.slow.test`]: [{ type: 'TIMEOUT' }],
    [`${TEST_POINT}.broken.test`]: [a('127.0.0.2')],
    [`${NEVER_LISTED}.broken.test`]: [a('127.0.0.2')],
    [`${LISTED}.broken.test`]: [a('127.0.0.2')],
  };
}
