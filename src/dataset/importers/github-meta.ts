/** GitHub meta API: top-level keys (hooks, web, api, git, actions, ...) holding CIDR arrays; other keys ignored. */
import {
  type CidrEntry,
  ImportFormatError,
  isRecord,
  parseJsonDocument,
  rowsFromCidrs,
  type TaggedRange,
} from './cidr-rows.ts';
import type { ParseResult, TextInput } from './types.ts';

export function parseGithubMeta(input: TextInput): ParseResult<TaggedRange> {
  const doc = parseJsonDocument(input, 'GitHub meta');
  if (!isRecord(doc)) throw new ImportFormatError('GitHub meta: not an object');
  const entries: CidrEntry[] = [];
  for (const [key, value] of Object.entries(doc)) {
    // ssh_keys and similar arrays hold no addresses: only arrays whose items look like CIDRs count.
    if (!Array.isArray(value) || key === 'ssh_keys') continue;
    for (const cidr of value) {
      if (typeof cidr === 'string' && /^[0-9a-fA-F:.]+\/\d+$/.test(cidr))
        entries.push({ cidr, service: key });
    }
  }
  return rowsFromCidrs(entries);
}
