/**
 * Google-style range JSON: `{creationTime, prefixes:[{ipv4Prefix|ipv6Prefix, service?, scope?}]}`.
 * Used by Google Cloud cloud.json, goog.json and the crawler files of Google, OpenAI, Bing,
 * Perplexity and Apple.
 */
import { arrayField, isRecord, parseJsonDocument, rowsFromCidrs, type TaggedRange } from './cidr-rows.ts';
import type { ParseResult, TextInput } from './types.ts';

export function parseGoogleStyleRanges(
  input: TextInput,
): ParseResult<TaggedRange> & { creationTime: string | null } {
  const doc = parseJsonDocument(input, 'range JSON');
  const prefixes = arrayField(doc, 'prefixes', 'range JSON');
  const entries = prefixes.map((p) =>
    isRecord(p)
      ? { cidr: p['ipv4Prefix'] ?? p['ipv6Prefix'], service: p['service'], region: p['scope'] }
      : { cidr: p },
  );
  const creationTime = isRecord(doc) && typeof doc['creationTime'] === 'string' ? doc['creationTime'] : null;
  return { ...rowsFromCidrs(entries), creationTime };
}
