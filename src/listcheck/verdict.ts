/**
 * Pure readings of DNSBL probes (audit's `probeDnsbl`, RFC 5782): whether a zone may be trusted
 * (its test points 127.0.0.2 listed and 127.0.0.1 not), and what one address's probe says. Facts
 * first, then the reading: a refusal code (Spamhaus 127.255.255.252/254/255) is `refused`, never
 * a listing; no answer in time, a server failure or an answer outside 127.0.0.0/8 is `unavailable`.
 */
import { type DnsblProbe, REFUSAL_CODES } from '../audit/index.ts';
import type { ZoneStatus } from './types.ts';

export interface Verdict {
  status: ZoneStatus;
  returnCodes: string[];
  reason: string | null;
  detail: string | null;
  /** The answer's TTL in seconds, when it had A records. */
  ttl: number | null;
}

const refusalOf = (probe: DnsblProbe) =>
  probe.rawCodes.map((c) => REFUSAL_CODES[c]).find((r) => r !== undefined);

function failed(probe: DnsblProbe, what: string): Verdict {
  const refusal = refusalOf(probe);
  const ttl = probe.ttl ?? null;
  if (refusal) return { status: 'refused', returnCodes: probe.rawCodes, reason: null, detail: refusal, ttl };
  const why =
    probe.outcome === 'timeout'
      ? `no answer in time (${probe.raw.rcode})`
      : (probe.raw.reason ?? `answer ${probe.raw.rcode}`);
  return { status: 'unavailable', returnCodes: [], reason: null, detail: `${what}: ${why}`, ttl };
}

/** Null when the zone passes both RFC 5782 test points, else the verdict every address of it gets. */
export function testPointVerdict(listed: DnsblProbe, unlisted: DnsblProbe): Verdict | null {
  if (listed.outcome === 'error' || listed.outcome === 'timeout')
    return failed(listed, 'test point 127.0.0.2');
  if (unlisted.outcome === 'error' || unlisted.outcome === 'timeout')
    return failed(unlisted, 'test point 127.0.0.1');
  const untrusted = (detail: string): Verdict => ({
    status: 'unavailable',
    returnCodes: [],
    reason: null,
    detail,
    ttl: null,
  });
  if (listed.outcome !== 'listed') {
    return untrusted(
      'the zone does not list its RFC 5782 test point 127.0.0.2: the zone name may be wrong, or the list no longer answers',
    );
  }
  if (unlisted.outcome === 'listed') {
    return untrusted(
      `the zone lists 127.0.0.1 (${unlisted.rawCodes.join(', ')}), which RFC 5782 says no list may: its answers cannot be trusted`,
    );
  }
  return null;
}

/** What one address's probe in a trusted zone says. */
export function addressVerdict(probe: DnsblProbe): Verdict {
  if (probe.outcome === 'listed') {
    const reason = probe.raw.txt.join(' ').trim();
    return {
      status: 'listed',
      returnCodes: probe.rawCodes,
      reason: reason === '' ? null : reason,
      detail: null,
      ttl: probe.ttl ?? null,
    };
  }
  if (probe.outcome === 'not_listed') {
    return { status: 'not_listed', returnCodes: [], reason: null, detail: null, ttl: null };
  }
  return failed(probe, 'the address’s query');
}
