/** AWS ip-ranges.json: `prefixes[].ip_prefix` and `ipv6_prefixes[].ipv6_prefix` with region and service. */
import { arrayField, isRecord, parseJsonDocument, rowsFromCidrs, type TaggedRange } from './cidr-rows.ts';
import type { ParseResult, TextInput } from './types.ts';

export function parseAwsIpRanges(input: TextInput): ParseResult<TaggedRange> & { createDate: string | null } {
  const doc = parseJsonDocument(input, 'AWS ip-ranges.json');
  const v4 = arrayField(doc, 'prefixes', 'AWS ip-ranges.json');
  const v6 = isRecord(doc) && Array.isArray(doc['ipv6_prefixes']) ? (doc['ipv6_prefixes'] as unknown[]) : [];
  const entries = [...v4, ...v6].map((p) =>
    isRecord(p)
      ? { cidr: p['ip_prefix'] ?? p['ipv6_prefix'], service: p['service'], region: p['region'] }
      : { cidr: p },
  );
  const createDate = isRecord(doc) && typeof doc['createDate'] === 'string' ? doc['createDate'] : null;
  return { ...rowsFromCidrs(entries), createDate };
}
