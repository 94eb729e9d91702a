/** Email domain authentication: MX, SPF (RFC 7208), DKIM keys, DMARC (RFC 7489), score and grade. */
export {
  checkDomain,
  normalizeSelectors,
  toDomainDnsResult,
} from './check-domain.ts';
export { DEFAULT_DKIM_SELECTORS } from './dkim.ts';
export { lookupDmarcPolicy } from './dmarc-policy.ts';
export {
  type CachedDomainCheck,
  createDomainCheckCache,
  domainCacheKey,
} from './domain-check-cache.ts';
export { checkHost } from './spf-check.ts';
export { checkSpfQuery } from './spf-query.ts';
export * from './types.ts';
export { describeResolvers, dnsFailureLabel, dnsUnavailable } from './unchecked.ts';
