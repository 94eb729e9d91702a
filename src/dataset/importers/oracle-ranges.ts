/** Oracle Cloud public_ip_ranges.json: `regions[].cidrs[].{cidr, tags}`. */
import {
  arrayField,
  type CidrEntry,
  isRecord,
  parseJsonDocument,
  rowsFromCidrs,
  type TaggedRange,
} from './cidr-rows.ts';
import type { ParseResult, TextInput } from './types.ts';

export function parseOracleRanges(input: TextInput): ParseResult<TaggedRange> {
  const doc = parseJsonDocument(input, 'Oracle public_ip_ranges.json');
  const entries: CidrEntry[] = [];
  for (const region of arrayField(doc, 'regions', 'Oracle public_ip_ranges.json')) {
    if (!isRecord(region) || !Array.isArray(region['cidrs'])) continue;
    for (const c of region['cidrs'] as unknown[]) {
      if (!isRecord(c)) continue;
      const tags = Array.isArray(c['tags']) ? (c['tags'] as unknown[]).join(',') : null;
      entries.push({ cidr: c['cidr'], service: tags, region: region['region'] });
    }
  }
  return rowsFromCidrs(entries);
}
