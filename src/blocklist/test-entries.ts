/**
 * RFC 5782 §5 test entries as the HTTP checks answer them, so they agree with the DNS zone
 * (CONTRACT §4): 127.0.0.2 is always listed, 127.0.0.1 never. The IPv6 forms ::FFFF:7F00:2 and
 * ::FFFF:7F00:1 normalize to these addresses (core/ip.ts), as the DNS server reads them too.
 */
import { DEFAULT_RETURN_CODES, type Listing } from './types.ts';

export const TEST_LISTED_IP = '127.0.0.2';
export const TEST_UNLISTED_IP = '127.0.0.1';
export const TEST_ENTRY_REASON = 'RFC 5782 test entry';

const TEST_LISTING: Listing = Object.freeze({
  ip: TEST_LISTED_IP,
  family: 4,
  type: 'spam',
  reason: TEST_ENTRY_REASON,
  returnCode: DEFAULT_RETURN_CODES.spam,
  // Listed since always and for ever: a fixed time keeps the answer the same on every call.
  listedAt: 0,
  expiresAt: null,
  updatedAt: 0,
});

/**
 * The fixed answer for a normalized address: the test listing, `null` for the never-listed
 * entry, `undefined` when the address is not a test entry (ask the store).
 */
export function testEntryListing(address: string): Listing | null | undefined {
  if (address === TEST_LISTED_IP) return TEST_LISTING;
  if (address === TEST_UNLISTED_IP) return null;
  return undefined;
}
