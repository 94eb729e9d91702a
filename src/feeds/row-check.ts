/**
 * Whether a value is a FeedRow (types.ts FeedRowSchema), as TypeBox's compiled check answers it,
 * without its per-row cost (issue #35 item 2): the compiled check tests `additionalProperties:
 * false` by building an array literal of the seven names for every key of every row. Reasons for
 * a refused row still come from TypeBox (row.ts canonicalizeRow); row-check.test.ts holds the two
 * answers equal.
 */
import type { FeedRow } from './types.ts';

/** A string of 1 to `max` UTF-16 code units (TypeBox's minLength and maxLength). */
function text(value: unknown, max: number): boolean {
  return typeof value === 'string' && value.length >= 1 && value.length <= max;
}

/** One of the schema's seven property names. */
function known(name: string): boolean {
  switch (name) {
    case 'network':
    case 'kind':
    case 'source':
    case 'first_seen':
    case 'last_seen':
    case 'brand':
    case 'asn':
      return true;
    default:
      return false;
  }
}

export function isFeedRow(value: unknown): value is FeedRow {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const row = value as Record<string, unknown>;
  if (
    !text(row.network, 64) ||
    !text(row.kind, 64) ||
    !text(row.source, 128) ||
    !text(row.first_seen, 64) ||
    !text(row.last_seen, 64)
  )
    return false;
  const { brand, asn } = row;
  if (brand !== undefined && !text(brand, 64)) return false;
  if (asn !== undefined && !(Number.isInteger(asn) && (asn as number) <= 4294967295 && (asn as number) >= 0))
    return false;
  // additionalProperties: false, over own names as TypeBox reads them (non-enumerable ones too).
  const names = Object.getOwnPropertyNames(value);
  if (names.length > 7) return false;
  for (let i = 0; i < names.length; i++) if (!known(names[i] as string)) return false;
  return true;
}
