/** Fastly public-ip-list: `{addresses:[v4 CIDR], ipv6_addresses:[v6 CIDR]}`. */
import { arrayField, isRecord, parseJsonDocument, rowsFromCidrs, type TaggedRange } from './cidr-rows.ts';
import type { ParseResult, TextInput } from './types.ts';

export function parseFastlyRanges(input: TextInput): ParseResult<TaggedRange> {
  const doc = parseJsonDocument(input, 'Fastly public-ip-list');
  const v4 = arrayField(doc, 'addresses', 'Fastly public-ip-list');
  const v6 =
    isRecord(doc) && Array.isArray(doc['ipv6_addresses']) ? (doc['ipv6_addresses'] as unknown[]) : [];
  return rowsFromCidrs([...v4, ...v6].map((cidr) => ({ cidr })));
}
