/**
 * The per-instance cache of the domain DNS route (spec §8): results are kept 24 hours per
 * normalized domain and selector set; `refresh` bypasses the cache and stores the fresh answer.
 * Ages come from the injected clock. A result cut short by DNS trouble (`complete: false`:
 * timeouts, SERVFAIL, refused, network errors, the deadline or the budget) is answered with
 * max-age=0 and not stored, so one bad minute is not served for a day.
 */
import { LRUCache } from 'lru-cache';
import type { Clock } from '../core/clock.ts';
import type { DnsClient } from '../core/dns/index.ts';
import { AppError } from '../core/errors.ts';
import { checkDomain, normalizeSelectors } from './check-domain.ts';
import { validateDomainName } from './domain-name.ts';
import type { PolicyFetchOptions } from './mta-sts.ts';
import type { DomainAuthResult } from './types.ts';

export const DOMAIN_CACHE_TTL_MS = 24 * 60 * 60 * 1000;
export const DOMAIN_CACHE_MAX_ENTRIES = 10_000;

export type DomainCacheStatus = 'HIT' | 'MISS' | 'BYPASS';

export interface CachedDomainCheck {
  result: DomainAuthResult;
  status: DomainCacheStatus;
  /** Whole seconds since the result was computed (0 on MISS and BYPASS). */
  ageSeconds: number;
  /** Seconds the result stays fresh; 0 when it was not stored. */
  maxAgeSeconds: number;
}

export interface DomainCheckCacheOptions {
  dns: DnsClient;
  /** The MTA-STS policy fetch's settings (checkDomain's `mtaSts`). */
  mtaSts?: PolicyFetchOptions;
  clock: Clock;
  ttlMs?: number;
  maxEntries?: number;
}

interface Entry {
  result: DomainAuthResult;
  computedAt: number;
}

/**
 * Only a complete answer is stored: `complete` is false when any query of the check went
 * unanswered (timeout, SERVFAIL, REFUSED, FORMERR, network error, deadline, budget; absence is
 * an answer). An incomplete answer is served once with max-age=0 and never kept (issue 31).
 */
const complete = (result: DomainAuthResult): boolean => result.complete;

/** The cache key: the normalized domain and the sorted, normalized selector set. */
export function domainCacheKey(domain: string, selectors: readonly string[]): string {
  return `${domain}|${[...selectors].sort().join(',')}`;
}

export function createDomainCheckCache(options: DomainCheckCacheOptions) {
  const ttlMs = options.ttlMs ?? DOMAIN_CACHE_TTL_MS;
  const entries = new LRUCache<string, Entry>({ max: options.maxEntries ?? DOMAIN_CACHE_MAX_ENTRIES });
  // Concurrent misses for one key share one computation.
  const inFlight = new Map<string, Promise<Entry>>();

  async function compute(domain: string, selectors: string[], key: string): Promise<Entry> {
    const result = await checkDomain(domain, {
      dns: options.dns,
      selectors,
      clock: options.clock,
      mtaSts: options.mtaSts,
    });
    const entry = { result, computedAt: options.clock() };
    if (complete(result)) entries.set(key, entry);
    else entries.delete(key);
    return entry;
  }

  function fresh(entry: Entry, status: DomainCacheStatus): CachedDomainCheck {
    return {
      result: entry.result,
      status,
      ageSeconds: 0,
      maxAgeSeconds: complete(entry.result) ? Math.floor(ttlMs / 1000) : 0,
    };
  }

  return {
    /** Throws INVALID_DOMAIN, or INVALID_PARAMETER for too many selectors. */
    async check(
      input: string,
      request: { selectors?: readonly string[]; refresh?: boolean } = {},
    ): Promise<CachedDomainCheck> {
      const domain = validateDomainName(input);
      if (domain === null) throw new AppError('INVALID_DOMAIN');
      const selectors = normalizeSelectors(request.selectors).sort();
      const key = domainCacheKey(domain, selectors);
      if (request.refresh) return fresh(await compute(domain, selectors, key), 'BYPASS');
      const now = options.clock();
      const hit = entries.get(key);
      if (hit && now - hit.computedAt < ttlMs && now >= hit.computedAt) {
        const ageSeconds = Math.floor((now - hit.computedAt) / 1000);
        return {
          result: hit.result,
          status: 'HIT',
          ageSeconds,
          maxAgeSeconds: Math.max(0, Math.floor(ttlMs / 1000) - ageSeconds),
        };
      }
      if (hit) entries.delete(key);
      let pending = inFlight.get(key);
      if (!pending) {
        pending = compute(domain, selectors, key).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      return fresh(await pending, 'MISS');
    },
    size: () => entries.size,
  };
}
