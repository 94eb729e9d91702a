/**
 * Public open-proxy lists, three formats:
 * - spys.me's `proxy.txt` (clarketm/proxy-list republishes it): a free-text header, then
 *   `IP:PORT CC-ANONYMITY[-S][!] [+|-]` per proxy, where ANONYMITY is N (transparent: passes the
 *   client address on), A (anonymous) or H (high anonymity, "elite"), `-S` marks HTTPS support
 *   and `+`/`-` whether the proxy passed spys.me's Google check. The header's `updated at` date
 *   is kept as the list date.
 * - plain `IP:PORT` lists (clarketm proxy-list-raw.txt, TheSpeedX/PROXY-List, monosans); a bare
 *   address without port is read too.
 * - FireHOL netsets (`firehol_proxies.netset`): `#` header with `This File Date`, then one IPv4
 *   address or CIDR per line.
 * Every row is an address or network listed as an open proxy; duplicates are refused.
 */
import { decodeText, parseAddr, parseCidrRange, splitLines } from './addr.ts';
import type { AddrRange, ParseResult, RejectedLine, TextInput } from './types.ts';

export type ProxyAnonymity = 'transparent' | 'anonymous' | 'elite';

export interface ProxyRow extends AddrRange {
  /** null where the list gives none (netsets list networks). */
  port: number | null;
  /** spys.me lists only; null where the list does not say. */
  anonymity: ProxyAnonymity | null;
  country: string | null;
  https: boolean | null;
}

export interface ProxyListResult extends ParseResult<ProxyRow> {
  /** The list's own date (spys.me `updated at`, FireHOL `This File Date`), ISO 8601; null when absent. */
  listedAt: string | null;
}

const ANONYMITY: Record<string, ProxyAnonymity> = { N: 'transparent', A: 'anonymous', H: 'elite' };

interface HostPort {
  family: 4 | 6;
  value: bigint;
  port: number | null;
}

/** `IP:PORT`, `[v6]:PORT` or a bare address: the address and port, or null. */
function hostPort(text: string): HostPort | null {
  let host = text;
  let portText: string | null = null;
  const bracket = /^\[([0-9A-Fa-f:.]+)\]:(\d{1,5})$/.exec(text);
  if (bracket) {
    host = bracket[1] as string;
    portText = bracket[2] as string;
  } else if (!text.includes('::') && (text.match(/:/g) ?? []).length === 1) {
    const i = text.indexOf(':');
    host = text.slice(0, i);
    portText = text.slice(i + 1);
  }
  const addr = parseAddr(host);
  if (!addr) return null;
  if (portText === null) return { ...addr, port: null };
  if (!/^\d{1,5}$/.test(portText)) return null;
  const port = Number(portText);
  if (port < 1 || port > 65535) return null;
  return { ...addr, port };
}

class Rows {
  readonly rows: ProxyRow[] = [];
  readonly rejected: RejectedLine[] = [];
  private readonly seen = new Set<string>();
  add(line: number, text: string, row: ProxyRow): void {
    const key = `${row.family}:${row.start}:${row.end}:${row.port ?? ''}`;
    if (this.seen.has(key)) {
      this.rejected.push({ line, text, reason: 'duplicate proxy' });
      return;
    }
    this.seen.add(key);
    this.rows.push(row);
  }
  /** One proxy at `hp` (hostPort's reading), or the line refused when that is no IP:PORT. */
  addHost(
    line: number,
    text: string,
    hp: HostPort | null,
    more: Pick<ProxyRow, 'anonymity' | 'country' | 'https'>,
  ): void {
    if (!hp) {
      this.rejected.push({ line, text, reason: 'not an IP:PORT' });
      return;
    }
    this.add(line, text, { family: hp.family, start: hp.value, end: hp.value, port: hp.port, ...more });
  }
}

/** The non-blank lines of a list, trimmed, with their 1-based number and raw text. */
function* listLines(input: TextInput): Generator<{ line: number; raw: string; text: string }> {
  const lines = splitLines(decodeText(input));
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const text = raw.trim();
    if (text !== '') yield { line: i + 1, raw, text };
  }
}

function isoOrNull(ms: number): string | null {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** spys.me header date `Fri, 24 Mar 23 07:58:01 +0300` (two-digit year). */
function spysDate(text: string): string | null {
  const m = /updated at \w{3}, (\d{1,2}) (\w{3}) (\d{2,4}) (\d{2}:\d{2}:\d{2}) ([+-]\d{4})/.exec(text);
  if (!m) return null;
  const year = (m[3] as string).length === 2 ? `20${m[3]}` : (m[3] as string);
  return isoOrNull(Date.parse(`${m[1]} ${m[2]} ${year} ${m[4]} ${m[5]}`));
}

/** spys.me proxy.txt. Lines before the first proxy line are the header. */
export function parseSpysProxyList(input: TextInput): ProxyListResult {
  const out = new Rows();
  let listedAt: string | null = null;
  for (const { line, raw, text } of listLines(input)) {
    const m = /^(\S+)\s+([A-Z]{2})-([NAH])(!?)(-S)?(!?)(?:\s+([+-]))?$/.exec(text);
    if (!m) {
      // Free text (the header, spys.me's trailing banner) is skipped; an address line that does
      // not read is refused.
      if (/^(\d|\[)/.test(text))
        out.rejected.push({ line, text: raw, reason: 'not an `IP:PORT CC-ANONYMITY` proxy line' });
      else listedAt ??= spysDate(text);
      continue;
    }
    const hp = hostPort(m[1] as string);
    out.addHost(line, raw, hp?.port === null ? null : hp, {
      anonymity: ANONYMITY[m[3] as string] ?? null,
      country: m[2] as string,
      https: m[5] !== undefined,
    });
  }
  return { rows: out.rows, rejected: out.rejected, listedAt };
}

/** Plain `IP:PORT` lists, one proxy a line; `#` starts a comment. */
export function parseIpPortList(input: TextInput): ProxyListResult {
  const out = new Rows();
  for (const { line, raw, text: whole } of listLines(input)) {
    const hash = whole.indexOf('#');
    const text = hash === -1 ? whole : whole.slice(0, hash).trim();
    if (text === '') continue;
    out.addHost(line, raw, hostPort(text), { anonymity: null, country: null, https: null });
  }
  return { rows: out.rows, rejected: out.rejected, listedAt: null };
}

/** FireHOL netset: `#` comment header (`# This File Date : Fri Nov 27 10:12:43 UTC 2026`), then IPs and CIDRs. */
export function parseFireholNetset(input: TextInput): ProxyListResult {
  const out = new Rows();
  let listedAt: string | null = null;
  for (const { line, raw, text } of listLines(input)) {
    if (text.startsWith('#')) {
      const m = /^#\s*This File Date\s*:\s*(.+)$/i.exec(text);
      if (m && listedAt === null) listedAt = isoOrNull(Date.parse(m[1] as string));
      continue;
    }
    const r = parseCidrRange(text);
    if (!r) {
      out.rejected.push({ line, text: raw, reason: 'not an IP address or CIDR' });
      continue;
    }
    out.add(line, raw, {
      family: r.family,
      start: r.start,
      end: r.end,
      port: null,
      anonymity: null,
      country: null,
      https: null,
    });
  }
  return { rows: out.rows, rejected: out.rejected, listedAt };
}
