import type { EncodeContext } from './encoders/encoder.ts';
import { ENCODERS } from './encoders/registry.ts';
import type { CanonicalRow } from './row.ts';
import { type RowSource, type SortOptions, sortFeedRows } from './sort-rows.ts';
import type { FeedFormat } from './types.ts';

/** Encoded text is handed out in chunks of about this many characters. */
export const CHUNK_CHARS = 1 << 16;

/** Encodes rows already in canonical order (as sortFeedRows yields them), chunk by chunk. */
export async function* encodeCanonicalRows(
  format: FeedFormat,
  rows: Iterable<CanonicalRow> | AsyncIterable<CanonicalRow>,
  ctx: EncodeContext,
): AsyncGenerator<string> {
  const encoder = ENCODERS[format](ctx);
  let chunk = encoder.header();
  let previous: string | null = null;
  for await (const c of rows) {
    // Encoders rely on canonical, duplicate-free order (iptables sections, RPZ owner names).
    if (previous !== null && c.key <= previous)
      throw new Error(`${format} encoder: rows out of canonical order`);
    previous = c.key;
    chunk += encoder.row(c);
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  chunk += encoder.footer();
  if (chunk) yield chunk;
}

/** Validates, normalizes, sorts and dedupes any rows, then encodes them in one format. */
export function encodeFeed(
  format: FeedFormat,
  rows: RowSource,
  ctx: EncodeContext,
  options: SortOptions = {},
): AsyncGenerator<string> {
  return encodeCanonicalRows(format, sortFeedRows(rows, options), ctx);
}
