/**
 * What a domain check could not read (issue 31). Each record's checks go through a recorder
 * that notes every query that failed for a reason other than "no such record" (timeout,
 * SERVFAIL, REFUSED, FORMERR, network error, the deadline, the budget): the record's answer is
 * then unknown (RFC 7208/7489 temperror), not absent. A failure is noted wherever the email
 * side reads DNS for the check: MX hosts, SPF includes and mechanisms, DKIM selectors, DMARC.
 */
import { type DnsClient, isDnsError, isTransient } from '../core/dns/index.ts';
import { AppError } from '../core/errors.ts';
import type { DomainAuthResult, UncheckedQuery } from './types.ts';

export type CheckedRecord = UncheckedQuery['record'];

const RECORD_ORDER: readonly CheckedRecord[] = ['mx', 'spf', 'dkim', 'dmarc'];

/** Wraps a client so that every failed query that is not an answer is pushed to `into`. */
export function recordFailures(dns: DnsClient, record: CheckedRecord, into: UncheckedQuery[]): DnsClient {
  const note = (err: unknown): never => {
    if (isDnsError(err) && isTransient(err)) into.push({ record, query: err.query, error: err.code });
    throw err;
  };
  return {
    txt: (name) => dns.txt(name).catch(note),
    mx: (name) => dns.mx(name).catch(note),
    a: (name) => dns.a(name).catch(note),
    aWithTtl: (name) => dns.aWithTtl(name).catch(note),
    aaaa: (name) => dns.aaaa(name).catch(note),
    ptr: (ip) => dns.ptr(ip).catch(note),
  };
}

/** Record order (MX, SPF, DKIM, DMARC), then query name; one entry per query. */
export function sortUnchecked(list: readonly UncheckedQuery[]): UncheckedQuery[] {
  const seen = new Set<string>();
  return [...list]
    .sort(
      (x, y) =>
        RECORD_ORDER.indexOf(x.record) - RECORD_ORDER.indexOf(y.record) || x.query.localeCompare(y.query),
    )
    .filter((u) => {
      const key = `${u.record}|${u.query}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** The domain's own records: when none of them could be read there is nothing to grade. */
const OWN_RECORDS = [{ record: 'mx' }, { record: 'spf' }, { record: 'dmarc' }] as const;

/** True when none of the domain's own records (MX, SPF, DMARC) could be read: no grade can be given. */
export function noOwnRecordRead(result: DomainAuthResult): boolean {
  return OWN_RECORDS.every(({ record }) => result.record_status[record] === 'temperror');
}

/** The resolvers a check used, as the message names them: NETREP_DNS_SERVERS, or the system's. */
export function describeResolvers(servers: readonly string[]): string {
  return servers.length > 0
    ? `the resolver${servers.length === 1 ? '' : 's'} ${servers.join(', ')} (NETREP_DNS_SERVERS)`
    : 'the system resolvers (NETREP_DNS_SERVERS is unset)';
}

/** A failure class as a person reads it: OTHER is a network error (nothing answered, connection refused). */
export function dnsFailureLabel(code: string): string {
  return code === 'OTHER' ? 'network error' : code;
}

/** Counts of the failure classes, e.g. "TIMEOUT ×3, SERVFAIL ×1", most frequent first. */
function failureSummary(unchecked: readonly UncheckedQuery[]): string {
  const counts = new Map<string, number>();
  for (const u of unchecked)
    counts.set(dnsFailureLabel(u.error), (counts.get(dnsFailureLabel(u.error)) ?? 0) + 1);
  return [...counts.entries()]
    .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
    .map(([code, n]) => `${code} ×${n}`)
    .join(', ');
}

/**
 * 503 DNS_UNAVAILABLE when none of MX, SPF and DMARC could be read; null otherwise (the
 * answer, complete or not, can be given). The message names the resolvers and the failures;
 * meta carries them for programs (`dns_servers`, `unchecked`).
 */
export function dnsUnavailable(result: DomainAuthResult, servers: readonly string[]): AppError | null {
  if (!noOwnRecordRead(result)) return null;
  const own = result.unchecked.filter((u) => u.record !== 'dkim');
  const shown = own
    .slice(0, 6)
    .map((u) => `${u.query} ${dnsFailureLabel(u.error)}`)
    .join('; ');
  const more = own.length > 6 ? `; ${own.length - 6} more` : '';
  return new AppError(
    'DNS_UNAVAILABLE',
    `Could not check MX, SPF or DMARC of ${result.domain}: ${describeResolvers(servers)} did not answer ` +
      `(${failureSummary(result.unchecked)}: ${shown}${more}). No grade is given for records that could not be read; retry later.`,
    {
      meta: { dns_servers: [...servers], unchecked: result.unchecked },
      headers: { 'retry-after': '30' },
    },
  );
}
