/**
 * TorDNSEL `exit-addresses` (https://check.torproject.org/exit-addresses): blocks of
 * `ExitNode <fp>` / `Published` / `LastStatus` / one or more `ExitAddress <ip> <date> <time>`.
 */
import { decodeText, parseAddr, splitLines } from './addr.ts';
import type { AddrRange, Family, ParseResult, RejectedLine, TextInput } from './types.ts';

export interface TorExitRow extends AddrRange {
  fingerprint: string;
  /** ISO 8601 UTC time the address was last seen exiting. */
  seenAt: string;
}

const DATE_TIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/;

/** The parse so far: rows, the row of each address, and the fingerprint of the open ExitNode block. */
interface TorParse {
  rows: TorExitRow[];
  byAddr: Map<string, TorExitRow>;
  fingerprint: string | null;
}

/** Reads the rest of a line after its keyword; returns why the line is rejected, or null. */
type KeywordReader = (st: TorParse, rest: string) => string | null;

const KEYWORDS = new Map<string, KeywordReader>([
  ['ExitNode', readExitNode],
  ['Published', checkTimestamp],
  ['LastStatus', checkTimestamp],
  ['ExitAddress', readExitAddress],
]);

export function parseTorExitAddresses(input: TextInput): ParseResult<TorExitRow> {
  const st: TorParse = { rows: [], byAddr: new Map(), fingerprint: null };
  const rejected: RejectedLine[] = [];
  const lines = splitLines(decodeText(input));
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith('@') || line.startsWith('Downloaded')) continue;
    const sp = line.indexOf(' ');
    const keyword = sp === -1 ? line : line.slice(0, sp);
    const read = KEYWORDS.get(keyword);
    const reason = read ? read(st, sp === -1 ? '' : line.slice(sp + 1).trim()) : 'unknown keyword';
    if (reason !== null) rejected.push({ line: i + 1, text: line, reason });
  }
  return { rows: st.rows, rejected };
}

/** `ExitNode <fp>` opens a relay's block; a bad fingerprint closes it (its addresses are rejected). */
function readExitNode(st: TorParse, rest: string): string | null {
  st.fingerprint = /^[0-9A-F]{40}$/i.test(rest) ? rest.toUpperCase() : null;
  return st.fingerprint ? null : 'invalid fingerprint';
}

/** `Published` and `LastStatus` carry a timestamp that is checked, not kept. */
function checkTimestamp(_st: TorParse, rest: string): string | null {
  return DATE_TIME.test(rest) ? null : 'invalid timestamp';
}

/** `ExitAddress <ip> <date> <time>`: a row of the open block's relay. */
function readExitAddress(st: TorParse, rest: string): string | null {
  const sp2 = rest.indexOf(' ');
  const addrText = sp2 === -1 ? rest : rest.slice(0, sp2);
  const when = sp2 === -1 ? '' : rest.slice(sp2 + 1).trim();
  const addr = parseAddr(addrText);
  const m = DATE_TIME.exec(when);
  if (!st.fingerprint) return 'ExitAddress outside an ExitNode block';
  if (!addr) return 'invalid address';
  if (!m) return 'invalid timestamp';
  addExit(st, addr.family, addr.value, st.fingerprint, `${m[1]}T${m[2]}Z`);
  return null;
}

/** Adds the exit; the same address under two relays keeps the most recent sighting. */
function addExit(st: TorParse, family: Family, value: bigint, fingerprint: string, seenAt: string): void {
  const key = `${family}:${value}`;
  const prev = st.byAddr.get(key);
  if (prev) {
    if (seenAt > prev.seenAt) {
      prev.seenAt = seenAt;
      prev.fingerprint = fingerprint;
    }
    return;
  }
  const row: TorExitRow = { family, start: value, end: value, fingerprint, seenAt };
  st.byAddr.set(key, row);
  st.rows.push(row);
}
