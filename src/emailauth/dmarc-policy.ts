/**
 * The DMARC policy that applies to a From domain, for the header analyzer's public route:
 * the same lookup as the domain check (record at the domain, else at its organizational
 * domain, whose sp= then applies), under its own small budget and deadline.
 */
import type { Clock } from '../core/clock.ts';
import { type DnsClient, withBudget } from '../core/dns/index.ts';
import { DOMAIN_CHECK_DEADLINE_MS } from './check-domain.ts';
import { checkDmarc } from './dmarc.ts';
import { validateDomainName } from './domain-name.ts';

export interface DmarcPolicyOptions {
  dns: DnsClient;
  clock: Clock;
  deadlineMs?: number;
}

/**
 * `none`, `quarantine` or `reject` as applied to `domain`; null when the name is not a public
 * hostname, no valid record applies, or DNS fails (never throws for DNS reasons).
 */
export async function lookupDmarcPolicy(domain: string, options: DmarcPolicyOptions): Promise<string | null> {
  const name = validateDomainName(domain);
  if (name === null) return null;
  // Two TXT lookups at most: _dmarc.<domain>, then _dmarc.<organizational domain>.
  const dns = withBudget(options.dns, {
    maxLookups: 2,
    concurrency: 1,
    deadlineMs: options.deadlineMs ?? DOMAIN_CHECK_DEADLINE_MS,
    clock: options.clock,
  });
  const { result: dmarc } = await checkDmarc(name, dns);
  return dmarc.found && dmarc.is_valid ? dmarc.effective_policy : null;
}
