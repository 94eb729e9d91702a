/** Azure ServiceTags_Public.json: `values[].properties.addressPrefixes` with the tag's region and system service. */
import {
  arrayField,
  type CidrEntry,
  isRecord,
  parseJsonDocument,
  rowsFromCidrs,
  type TaggedRange,
} from './cidr-rows.ts';
import type { ParseResult, TextInput } from './types.ts';

export function parseAzureServiceTags(
  input: TextInput,
): ParseResult<TaggedRange> & { changeNumber: number | null } {
  const doc = parseJsonDocument(input, 'Azure ServiceTags');
  const entries: CidrEntry[] = [];
  for (const v of arrayField(doc, 'values', 'Azure ServiceTags')) {
    const props = isRecord(v) && isRecord(v['properties']) ? v['properties'] : null;
    if (!props || !Array.isArray(props['addressPrefixes'])) continue;
    for (const cidr of props['addressPrefixes'] as unknown[]) {
      entries.push({
        cidr,
        service: props['systemService'] || (isRecord(v) ? v['name'] : null),
        region: props['region'],
      });
    }
  }
  const changeNumber = isRecord(doc) && typeof doc['changeNumber'] === 'number' ? doc['changeNumber'] : null;
  return { ...rowsFromCidrs(entries), changeNumber };
}
