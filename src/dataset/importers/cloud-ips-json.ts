/** jonhadfield/ip-fetcher derived lists (Hetzner, OVH): `{"IPv4Prefixes":[...],"IPv6Prefixes":[...]}`. */
import { arrayField, isRecord, parseJsonDocument, rowsFromCidrs, type TaggedRange } from './cidr-rows.ts';
import type { ParseResult, TextInput } from './types.ts';

export function parseCloudIpsJson(input: TextInput): ParseResult<TaggedRange> {
  const doc = parseJsonDocument(input, 'cloud-ips JSON');
  const v4 = arrayField(doc, 'IPv4Prefixes', 'cloud-ips JSON');
  const v6 = isRecord(doc) && Array.isArray(doc['IPv6Prefixes']) ? (doc['IPv6Prefixes'] as unknown[]) : [];
  return rowsFromCidrs([...v4, ...v6].map((cidr) => ({ cidr })));
}
