/**
 * The text fields of feed rows (kind, source, first_seen, last_seen, brand), each distinct set kept
 * once for one sort (issue #35 item 2): a record (row-record.ts) carries the set's number instead of
 * some 70 bytes of text, which it would otherwise carry through the run, the spill file and the
 * merge, and an encoder meets the same set again by number. Rows of one source mostly share their
 * set; a feed whose rows all differ (a date per address) fills the table, and the sets past it are
 * written into their records in full.
 */
import type { SharedFields } from './row.ts';
import type { FeedRow } from './types.ts';

/** One distinct set of a row's text fields. */
export interface FieldSet {
  /** The same object for every record of the set (encoders memoize by it, row.ts sharedFieldsMemo). */
  shared: SharedFields;
  brand: string | undefined;
}

/** Sets kept per sort: up to a few MB of text for rows that all differ, where their records hold the rest. */
export const MAX_FIELD_SETS = 1 << 14;

export class FieldTable {
  readonly sets: FieldSet[] = [];
  private readonly ids = new Map<string, number>();

  constructor(private readonly max = MAX_FIELD_SETS) {}

  /** The number of the row's set, added when new; -1 when it is new and the table is full. */
  idOf(row: FeedRow): number {
    const { kind, source, first_seen, last_seen, brand } = row;
    // Lengths first: no separator character could be told apart from the fields' own text.
    const key = `${kind.length},${source.length},${first_seen.length},${last_seen.length},${brand === undefined ? -1 : brand.length}:${kind}${source}${first_seen}${last_seen}${brand ?? ''}`;
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    if (this.sets.length >= this.max) return -1;
    const id = this.sets.length;
    this.sets.push({ shared: { kind, source, first_seen, last_seen }, brand });
    this.ids.set(key, id);
    return id;
  }
}
