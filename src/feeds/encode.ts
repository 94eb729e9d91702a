import { ByteSink } from './encoders/byte-sink.ts';
import type { EncodeContext } from './encoders/encoder.ts';
import { ENCODERS } from './encoders/registry.ts';
import { FieldTable } from './field-table.ts';
import { RecordCursor } from './record-cursor.ts';
import type { CanonicalRow } from './row.ts';
import { RecordWriter } from './row-record.ts';
import { type RowSource, type SortOptions, sortFeedRows } from './sort-rows.ts';
import type { FeedFormat } from './types.ts';

/** Encoded text is handed out in chunks of about this many bytes. */
const CHUNK_BYTES = 1 << 16;

/** Encodes rows already in canonical order (as sortFeedRows yields them), chunk by chunk. */
export async function* encodeCanonicalRows(
  format: FeedFormat,
  rows: Iterable<CanonicalRow> | AsyncIterable<CanonicalRow>,
  ctx: EncodeContext,
): AsyncGenerator<string> {
  const encoder = ENCODERS[format](ctx);
  const out = new ByteSink(CHUNK_BYTES * 2);
  out.text(encoder.header());
  // Encoders write from records (record-cursor.ts): each row is written as one, then encoded.
  const fields = new FieldTable();
  const record = new RecordWriter(fields, 1 << 10);
  const cursor = new RecordCursor(fields);
  let previous: string | null = null;
  for await (const c of rows) {
    // Encoders rely on canonical, duplicate-free order (iptables sections, RPZ owner names).
    if (previous !== null && c.key <= previous)
      throw new Error(`${format} encoder: rows out of canonical order`);
    previous = c.key;
    record.clear();
    record.addCanonical(c);
    encoder.row(cursor.at(record.buf, 0), out);
    // Cut between rows only: a chunk never ends inside a UTF-8 character.
    if (out.pos >= CHUNK_BYTES) yield out.takeText();
  }
  out.text(encoder.footer());
  if (out.pos > 0) yield out.takeText();
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
