/**
 * TorDNSEL `exit-addresses` (https://check.torproject.org/exit-addresses): blocks of
 * `ExitNode <fp>` / `Published` / `LastStatus` / one or more `ExitAddress <ip> <date> <time>`.
 */
import { decodeText, parseAddr, splitLines } from './addr.ts';
import type { AddrRange, ParseResult, RejectedLine, TextInput } from './types.ts';

export interface TorExitRow extends AddrRange {
  fingerprint: string;
  /** ISO 8601 UTC time the address was last seen exiting. */
  seenAt: string;
}

const DATE_TIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/;

export function parseTorExitAddresses(input: TextInput): ParseResult<TorExitRow> {
  const rows: TorExitRow[] = [];
  const rejected: RejectedLine[] = [];
  const byAddr = new Map<string, TorExitRow>();
  let fingerprint: string | null = null;
  const lines = splitLines(decodeText(input));
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith('@') || line.startsWith('Downloaded')) continue;
    const sp = line.indexOf(' ');
    const keyword = sp === -1 ? line : line.slice(0, sp);
    const rest = sp === -1 ? '' : line.slice(sp + 1).trim();
    if (keyword === 'ExitNode') {
      fingerprint = /^[0-9A-F]{40}$/i.test(rest) ? rest.toUpperCase() : null;
      if (!fingerprint) rejected.push({ line: i + 1, text: line, reason: 'invalid fingerprint' });
    } else if (keyword === 'Published' || keyword === 'LastStatus') {
      if (!DATE_TIME.test(rest)) rejected.push({ line: i + 1, text: line, reason: 'invalid timestamp' });
    } else if (keyword === 'ExitAddress') {
      const sp2 = rest.indexOf(' ');
      const addrText = sp2 === -1 ? rest : rest.slice(0, sp2);
      const when = sp2 === -1 ? '' : rest.slice(sp2 + 1).trim();
      const addr = parseAddr(addrText);
      const m = DATE_TIME.exec(when);
      if (!fingerprint)
        rejected.push({ line: i + 1, text: line, reason: 'ExitAddress outside an ExitNode block' });
      else if (!addr) rejected.push({ line: i + 1, text: line, reason: 'invalid address' });
      else if (!m) rejected.push({ line: i + 1, text: line, reason: 'invalid timestamp' });
      else {
        const seenAt = `${m[1]}T${m[2]}Z`;
        const key = `${addr.family}:${addr.value}`;
        const prev = byAddr.get(key);
        // The same address under two relays: keep the most recent sighting.
        if (prev) {
          if (seenAt > prev.seenAt) {
            prev.seenAt = seenAt;
            prev.fingerprint = fingerprint;
          }
          continue;
        }
        const row: TorExitRow = {
          family: addr.family,
          start: addr.value,
          end: addr.value,
          fingerprint,
          seenAt,
        };
        byAddr.set(key, row);
        rows.push(row);
      }
    } else {
      rejected.push({ line: i + 1, text: line, reason: 'unknown keyword' });
    }
  }
  return { rows, rejected };
}
