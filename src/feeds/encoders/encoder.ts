import type { RecordCursor } from '../record-cursor.ts';
import type { FeedDefinition } from '../types.ts';
import type { ByteSink } from './byte-sink.ts';

/** What every encoder knows about the snapshot besides its rows. */
export interface EncodeContext {
  feed: FeedDefinition;
  /** UTC day of the snapshot, YYYY-MM-DD. */
  date: string;
  generatedAt: string;
  datasetVersion: number;
}

/**
 * A streaming encoder: `header`, then `row` once per row in canonical order, then `footer`.
 * `header` and `footer` return the text to write (possibly empty); `row` appends the bytes of the
 * row under the cursor to `out` (byte-sink.ts), copying the network's text from the record
 * (record-cursor.ts): no row object, no per-row string. State between calls is the encoder's own.
 */
export interface FeedEncoder {
  header(): string;
  row(row: RecordCursor, out: ByteSink): void;
  footer(): string;
}

export type EncoderFactory = (ctx: EncodeContext) => FeedEncoder;

/** Comment lines naming the feed, snapshot and license, for formats that have comments. */
export function commentHeader(ctx: EncodeContext, mark: string, usage: string[]): string {
  const lines = [
    `netrep feed ${ctx.feed.name}: ${ctx.feed.title}`,
    `Snapshot ${ctx.date}, generated ${ctx.generatedAt}, dataset version ${ctx.datasetVersion}`,
    `License: ${ctx.feed.license}`,
    ...usage,
  ];
  return lines.map((l) => `${mark} ${l.replace(/[\r\n]+/g, ' ')}\n`).join('');
}
