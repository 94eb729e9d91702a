import { Resolver } from 'node:dns/promises';
import { parseIp } from '../ip.ts';
import { DnsError, mapDnsError } from './errors.ts';
import { parseDnsServers } from './servers.ts';

export interface MxAnswer {
  exchange: string;
  priority: number;
}

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
  const resolver = new Resolver({
    timeout: options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS,
    tries: options.tries ?? DEFAULT_DNS_TRIES,
  });
  const servers = parseDnsServers(options.servers);
  if (servers.length > 0) resolver.setServers(servers);

  async function run<T>(name: string, type: string, query: (n: string) => Promise<T[]>): Promise<T[]> {
    const qname = normalizeQueryName(name);
    const label = `${qname} ${type}`;
    if (qname.length === 0 || qname.length > 253) throw new DnsError('BADNAME', label);
    try {
      const answers = await query(qname);
      // c-ares reports an empty answer as ENODATA; keep the guarantee for every record type.
      if (answers.length === 0) throw new DnsError('NODATA', label);
      return answers;
    } catch (err) {
      throw mapDnsError(err, label);
    }
  }

  return {
    txt: (name) => run(name, 'TXT', (n) => resolver.resolveTxt(n)),
    mx: (name) =>
      run(name, 'MX', (n) => resolver.resolveMx(n)).then((rows) =>
        rows.map((r) => ({ exchange: normalizeQueryName(r.exchange), priority: r.priority })),
      ),
    a: (name) => run(name, 'A', (n) => resolver.resolve4(n)),
    aaaa: (name) => run(name, 'AAAA', (n) => resolver.resolve6(n)),
    ptr: async (ip) => {
      const name = reverseName(ip);
      if (name === null) throw new DnsError('BADNAME', `${ip} PTR`);
      const rows = await run(name, 'PTR', (n) => resolver.resolvePtr(n));
      return rows.map(normalizeQueryName);
    },
  };
}
