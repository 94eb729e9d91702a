/**
 * The domain check: MX, SPF, DKIM and DMARC under one DNS budget and deadline, then the score.
 * Never throws for DNS reasons: what could not be read is in `complete`, `unchecked` and each
 * record's `dns_status`; callers answering a person or a program turn a check that read none of
 * MX, SPF and DMARC into DNS_UNAVAILABLE (`dnsUnavailable`, unchecked.ts).
 */
import { type Clock, toIso } from '../core/clock.ts';
import { type DnsClient, withBudget } from '../core/dns/index.ts';
import { AppError } from '../core/errors.ts';
import { checkBimi, finishBimi } from './bimi.ts';
import { checkDkimSelector, DEFAULT_DKIM_SELECTORS } from './dkim.ts';
import { checkDmarc } from './dmarc.ts';
import { validateDomainName } from './domain-name.ts';
import { checkMtaSts, finishMtaSts, type PolicyFetchOptions } from './mta-sts.ts';
import { checkMx } from './mx.ts';
import { scoreDomain } from './score.ts';
import { analyzeSpf } from './spf-analyze.ts';
import { checkTlsRpt } from './tls-rpt.ts';
import type { DomainAuthResult, DomainDnsResult, UncheckedQuery } from './types.ts';
import { recordFailures, sortUnchecked } from './unchecked.ts';

/** Spec §8: the DNS work of one domain check has 5 seconds in total. */
export const DOMAIN_CHECK_DEADLINE_MS = 5000;
export const DOMAIN_CHECK_MAX_LOOKUPS = 120;
export const DOMAIN_CHECK_CONCURRENCY = 8;
/** Explicit selectors accepted per check (each costs a lookup). */
export const MAX_EXPLICIT_SELECTORS = 20;

export interface CheckDomainOptions {
  dns: DnsClient;
  /** Explicit DKIM selectors: all are returned, found or not. Omitted or empty: the default set, found only. */
  selectors?: string[];
  clock: Clock;
  deadlineMs?: number;
  maxLookups?: number;
  concurrency?: number;
  /** The MTA-STS policy fetch: the test-only loopback setting, extra CA, port and timeout. */
  mtaSts?: PolicyFetchOptions;
}

/** Lower-cased, de-duplicated selectors in the given order; throws INVALID_PARAMETER past the cap. */
export function normalizeSelectors(selectors: readonly string[] | undefined): string[] {
  const list = [...new Set((selectors ?? []).map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0))];
  if (list.length > MAX_EXPLICIT_SELECTORS) {
    throw new AppError(
      'INVALID_PARAMETER',
      `selectors: at most ${MAX_EXPLICIT_SELECTORS} selectors per check`,
    );
  }
  return list;
}

export async function checkDomain(input: string, options: CheckDomainOptions): Promise<DomainAuthResult> {
  const domain = validateDomainName(input);
  if (domain === null) throw new AppError('INVALID_DOMAIN');
  const explicit = normalizeSelectors(options.selectors);
  const selectors = explicit.length > 0 ? explicit : [...DEFAULT_DKIM_SELECTORS];
  const dns = withBudget(options.dns, {
    maxLookups: options.maxLookups ?? DOMAIN_CHECK_MAX_LOOKUPS,
    concurrency: options.concurrency ?? DOMAIN_CHECK_CONCURRENCY,
    deadlineMs: options.deadlineMs ?? DOMAIN_CHECK_DEADLINE_MS,
    clock: options.clock,
  });
  // Every query that fails without an answer is noted against the record that needed it.
  const failures: UncheckedQuery[] = [];
  // MTA-STS, TLS-RPT and BIMI share the budget but not `unchecked`: each carries its own status.
  const [mxChecked, spfChecked, dkimChecked, dmarcChecked, mtaSts, tlsRpt, bimi] = await Promise.all([
    checkMx(domain, recordFailures(dns, 'mx', failures)),
    analyzeSpf(domain, recordFailures(dns, 'spf', failures)),
    Promise.all(selectors.map((s) => checkDkimSelector(domain, s, recordFailures(dns, 'dkim', failures)))),
    checkDmarc(domain, recordFailures(dns, 'dmarc', failures)),
    checkMtaSts(domain, dns, options.mtaSts),
    checkTlsRpt(domain, dns),
    checkBimi(domain, dns),
  ]);
  const mx = mxChecked.result;
  const spf = spfChecked.result;
  const dmarc = dmarcChecked.result;
  const dkimAll = dkimChecked.map((d) => d.result);
  // Spec §4 rule 4: explicit selectors are all returned; default ones only when found.
  const dkim = explicit.length > 0 ? dkimAll : dkimAll.filter((d) => d.found);
  const dkimUnread = dkimChecked.filter((d) => d.status === 'temperror').map((d) => d.result);
  const status = { mx: mxChecked.status, spf: spfChecked.status, dmarc: dmarcChecked.status };
  const stats = dns.stats();
  const scored = scoreDomain({
    domain,
    mx,
    spf,
    dkim,
    dkimUnread,
    status,
    mxUnreadHosts: mxChecked.unreadHosts,
    selectors,
    dmarc,
    dns: stats,
  });
  const unchecked = sortUnchecked(failures);
  return {
    domain,
    score: scored.score,
    grade: scored.grade,
    mx,
    spf,
    dkim,
    dmarc,
    mta_sts: finishMtaSts(domain, mtaSts, mx),
    tls_rpt: tlsRpt,
    bimi: finishBimi(domain, bimi, dmarc),
    recommendations: scored.recommendations,
    checked_at: toIso(options.clock()),
    dns: stats,
    record_status: {
      mx: status.mx,
      spf: status.spf,
      dkim: Object.fromEntries(dkimChecked.map((d) => [d.result.selector, d.status])),
      dmarc: status.dmarc,
    },
    complete: unchecked.length === 0 && !stats.deadline_exceeded && !stats.budget_exhausted,
    unchecked,
  };
}

/** The DNS route's shape: `score` renamed `domain_auth_score` (spec §2.7). */
export function toDomainDnsResult(result: DomainAuthResult): DomainDnsResult {
  const { domain, score, ...rest } = result;
  return { domain, domain_auth_score: score, ...rest };
}
