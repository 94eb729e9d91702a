/**
 * One DNSBL probe (RFC 5782): the address's reversed name under the zone is asked for A; an
 * answer in 127.0.0.0/8 means listed, NXDOMAIN (or NODATA) not listed. Facts first: every
 * answer code is kept in `rawCodes` and the TXT in the raw response, then the outcome is read.
 * Lists answer 127.255.255.252/254/255 to say they refused the query (typo in the zone name,
 * query through a public or open resolver, too many queries); such an answer, or one outside
 * 127.0.0.0/8 (a resolver rewriting NXDOMAIN), is an `error` with its reason, never a listing.
 */
import { type DnsClient, isDnsError, reverseName } from '../core/dns/index.ts';

export type DnsblOutcome = 'listed' | 'not_listed' | 'error' | 'timeout';

export interface DnsblProbe {
  outcome: DnsblOutcome;
  rawCodes: string[];
  /** The answer's smallest A record TTL in seconds (absent without A records). */
  ttl?: number;
  raw: { query: string; rcode: string; txt: string[]; reason?: string };
}

/** Codes lists use to refuse a query instead of answering it (Spamhaus, SURBL, others). */
export const REFUSAL_CODES: Readonly<Record<string, string>> = {
  '127.255.255.252': 'the list refused the query: typing error in the DNSBL name (127.255.255.252)',
  '127.255.255.254': 'the list refused the query: made through a public or open resolver (127.255.255.254)',
  '127.255.255.255': 'the list refused the query: excessive number of queries (127.255.255.255)',
};

/** `2.0.0.127.bl.example` for 127.0.0.2 under bl.example; null when the input is not an IP. */
export function dnsblQueryName(ip: string, zone: string): string | null {
  const reverse = reverseName(ip);
  return reverse ? `${reverse.replace(/\.(in-addr|ip6)\.arpa$/, '')}.${zone}` : null;
}

export async function probeDnsbl(
  dns: Pick<DnsClient, 'aWithTtl' | 'txt'>,
  zone: string,
  ip: string,
): Promise<DnsblProbe> {
  const query = dnsblQueryName(ip, zone) ?? '';
  let codes: string[];
  let ttl: number;
  try {
    const records = await dns.aWithTtl(query);
    codes = records.map((r) => r.address).sort();
    ttl = Math.min(...records.map((r) => r.ttl));
  } catch (err) {
    const code = isDnsError(err) ? err.code : 'OTHER';
    if (code === 'NXDOMAIN' || code === 'NODATA') {
      return { outcome: 'not_listed', rawCodes: [], raw: { query, rcode: code, txt: [] } };
    }
    const outcome = code === 'TIMEOUT' || code === 'DEADLINE' ? 'timeout' : 'error';
    return { outcome, rawCodes: [], raw: { query, rcode: code, txt: [], reason: `DNS ${code}` } };
  }
  const refusal = codes.map((c) => REFUSAL_CODES[c]).find((r) => r !== undefined);
  const foreign = codes.find((c) => !c.startsWith('127.'));
  if (refusal || foreign) {
    const reason = refusal ?? `answer ${foreign} is outside 127.0.0.0/8: not a DNSBL return code`;
    return { outcome: 'error', rawCodes: codes, ttl, raw: { query, rcode: 'NOERROR', txt: [], reason } };
  }
  let txt: string[] = [];
  try {
    txt = (await dns.txt(query)).map((parts) => parts.join(''));
  } catch {
    // The TXT is informative only; a listing stands without it.
  }
  return { outcome: 'listed', rawCodes: codes, ttl, raw: { query, rcode: 'NOERROR', txt } };
}

/**
 * RFC 5782 §5 test points, asked before a job trusts a zone: 127.0.0.2 must be listed and
 * 127.0.0.1 must not. Returns null when the zone passes, else why it is not trusted.
 */
export async function zoneTestPointFailure(
  dns: Pick<DnsClient, 'aWithTtl' | 'txt'>,
  zone: string,
): Promise<string | null> {
  const [listed, unlisted] = await Promise.all([
    probeDnsbl(dns, zone, '127.0.0.2'),
    probeDnsbl(dns, zone, '127.0.0.1'),
  ]);
  if (listed.outcome !== 'listed') {
    const why = listed.raw.reason ?? listed.outcome;
    return `zone ${zone} failed the RFC 5782 test point 127.0.0.2 (must be listed): ${why}`;
  }
  if (unlisted.outcome !== 'not_listed') {
    const why = unlisted.raw.reason ?? `${unlisted.outcome} ${unlisted.rawCodes.join(',')}`.trim();
    return `zone ${zone} failed the RFC 5782 test point 127.0.0.1 (must not be listed): ${why}`;
  }
  return null;
}
