import { Resolver } from 'node:dns/promises';
import { parseIp } from '../ip.ts';
import type { MxAnswer } from './answers.ts';
import { DnsError, mapDnsError } from './errors.ts';
import { type RawRecordType, type RawResults, rawQuery } from './raw-query.ts';
import { parseDnsServers } from './servers.ts';

export type { MxAnswer } from './answers.ts';

/**
 * The one DNS interface of the product (email authentication, PTR lookups, audit probes).
 * Every method resolves with at least one record or rejects with a DnsError; NXDOMAIN and
 * NODATA are errors too, so that callers can tell them apart (RFC 7208 void lookups).
 */
export interface DnsClient {
  /** TXT records, each as its character-strings (join them for SPF, DKIM, DMARC). */
  txt(name: string): Promise<string[][]>;
  /** MX records as published (a null MX, RFC 7505, has exchange ''). */
  mx(name: string): Promise<MxAnswer[]>;
  a(name: string): Promise<string[]>;
  /** A records with each one's TTL in seconds (what a cache of the answer may hold it for). */
  aWithTtl(name: string): Promise<{ address: string; ttl: number }[]>;
  aaaa(name: string): Promise<string[]>;
  /** PTR names of an IP address (queries the in-addr.arpa / ip6.arpa name). */
  ptr(ip: string): Promise<string[]>;
}

export interface DnsClientOptions {
  /** `ip`, `ip:port` or `[ipv6]:port`; empty means the system's resolvers. */
  servers: readonly string[];
  /** Per-try timeout in milliseconds. */
  timeoutMs?: number;
  /** Tries per query (c-ares retries on timeout). */
  tries?: number;
}

export const DEFAULT_DNS_TIMEOUT_MS = 2000;
export const DEFAULT_DNS_TRIES = 2;

/** The in-addr.arpa or ip6.arpa name of an address; null when the input is not an IP. */
export function reverseName(ip: string): string | null {
  const parsed = parseIp(ip);
  if (!parsed) return null;
  if (parsed.family === 4) return `${[...parsed.bytes].reverse().join('.')}.in-addr.arpa`;
  const nibbles: string[] = [];
  for (const byte of parsed.bytes) nibbles.push((byte >> 4).toString(16), (byte & 15).toString(16));
  return `${nibbles.reverse().join('.')}.ip6.arpa`;
}

/** Lower case, one trailing dot removed: the form every query and comparison uses. */
export function normalizeQueryName(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

export function createDnsClient(options: DnsClientOptions): DnsClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS;
  const tries = options.tries ?? DEFAULT_DNS_TRIES;
  const resolver = new Resolver({ timeout: timeoutMs, tries });
  const servers = parseDnsServers(options.servers);
  if (servers.length > 0) resolver.setServers(servers);

  async function ask<T extends unknown[]>(
    name: string,
    type: RawRecordType | 'PTR',
    query: (n: string) => Promise<T>,
    fallback?: (n: string) => Promise<T>,
  ): Promise<T> {
    const qname = normalizeQueryName(name);
    const label = `${qname} ${type}`;
    if (qname.length === 0 || qname.length > 253) throw new DnsError('BADNAME', label);
    try {
      const answers = await query(qname);
      // c-ares reports an empty answer as ENODATA; keep the guarantee for every record type.
      if (answers.length === 0) throw new DnsError('NODATA', label);
      return answers;
    } catch (err) {
      // c-ares refuses names outside hostname syntax that DNS (and RFC 7208 §7.1) allows:
      // those go to the same servers through the raw stub resolver.
      if (fallback && (err as { code?: unknown } | null)?.code === 'EBADNAME') return await fallback(qname);
      throw mapDnsError(err, label);
    }
  }

  function run<K extends RawRecordType>(
    name: string,
    type: K,
    query: (n: string) => Promise<RawResults[K]>,
  ): Promise<RawResults[K]> {
    return ask(name, type, query, (qname) =>
      rawQuery(qname, type, { servers: resolver.getServers(), timeoutMs, tries }),
    );
  }

  return {
    txt: (name) => run(name, 'TXT', (n) => resolver.resolveTxt(n)),
    mx: (name) =>
      run(name, 'MX', (n) => resolver.resolveMx(n)).then((rows) =>
        rows.map((r) => ({ exchange: normalizeQueryName(r.exchange), priority: r.priority })),
      ),
    a: (name) => run(name, 'A', (n) => resolver.resolve4(n)),
    // Hostname-syntax names only (no raw fallback): the TTL comes from c-ares' answer.
    aWithTtl: (name) => ask(name, 'A', (n) => resolver.resolve4(n, { ttl: true })),
    aaaa: (name) => run(name, 'AAAA', (n) => resolver.resolve6(n)),
    ptr: async (ip) => {
      const name = reverseName(ip);
      if (name === null) throw new DnsError('BADNAME', `${ip} PTR`);
      // Reverse names are always hostnames: no raw fallback needed.
      const rows = await ask(name, 'PTR', (n) => resolver.resolvePtr(n));
      return rows.map(normalizeQueryName);
    },
  };
}
