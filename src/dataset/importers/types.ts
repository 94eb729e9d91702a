/** Shapes every importer returns: typed rows plus the lines it refused, with reasons. */
export type Family = 4 | 6;

/** An inclusive address range; IPv4 and IPv6 values are unsigned integers as bigint. */
export interface AddrRange {
  family: Family;
  start: bigint;
  end: bigint;
}

export interface RejectedLine {
  /** 1-based line number (or record index for JSON sources). */
  line: number;
  text: string;
  reason: string;
}

export interface ParseResult<T> {
  rows: T[];
  rejected: RejectedLine[];
}

/** Input accepted by text importers: a string, or bytes decoded as UTF-8 (Latin-1 where stated). */
export type TextInput = string | Uint8Array;
