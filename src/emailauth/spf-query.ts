/**
 * The SPF check as the API asks it (spec §2.7): an IP, a domain or a sender (the domain defaults
 * to the sender's, the sender to postmaster@domain), check_host() under one DNS budget with the
 * domain check's 5 s deadline.
 */
import type { Clock } from '../core/clock.ts';
import { type DnsClient, withBudget } from '../core/dns/index.ts';
import { AppError } from '../core/errors.ts';
import { parseIp } from '../core/ip.ts';
import { DOMAIN_CHECK_DEADLINE_MS } from './check-domain.ts';
import { checkHost, type SpfCheckResult } from './spf-check.ts';

/** The DNS budget of one SPF check; check_host() applies RFC 7208 §4.6.4's own limits inside it. */
export const SPF_CHECK_MAX_LOOKUPS = 120;
export const SPF_CHECK_CONCURRENCY = 4;

export interface SpfQuery {
  ip: string;
  domain?: string | undefined;
  sender?: string | undefined;
  helo?: string | undefined;
}

/** The domain an SPF query checks: the given one, else the sender's; '' when neither names one. */
export function spfQueryDomain(query: Pick<SpfQuery, 'domain' | 'sender'>): string {
  const sender = query.sender?.trim() ?? '';
  return query.domain?.trim() || (sender.includes('@') ? sender.slice(sender.lastIndexOf('@') + 1) : '');
}

/** Throws MISSING_DOMAIN (no domain, no sender domain) or INVALID_IP before any DNS work. */
export async function checkSpfQuery(
  query: SpfQuery,
  options: { dns: DnsClient; clock: Clock },
): Promise<SpfCheckResult> {
  const domain = spfQueryDomain(query);
  if (domain === '') throw new AppError('MISSING_DOMAIN');
  const ip = query.ip.trim();
  if (!parseIp(ip)) throw new AppError('INVALID_IP', `invalid IP address: ${query.ip}`);
  const sender = query.sender?.trim() ?? '';
  const dns = withBudget(options.dns, {
    maxLookups: SPF_CHECK_MAX_LOOKUPS,
    concurrency: SPF_CHECK_CONCURRENCY,
    deadlineMs: DOMAIN_CHECK_DEADLINE_MS,
    clock: options.clock,
  });
  return checkHost(ip, domain, sender || `postmaster@${domain}`, {
    dns,
    clock: options.clock,
    ...(query.helo ? { helo: query.helo.trim() } : {}),
  });
}
