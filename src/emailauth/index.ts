/** Email domain authentication: MX, SPF (RFC 7208), DKIM keys, DMARC (RFC 7489), score and grade. */
export {
  type CheckDomainOptions,
  checkDomain,
  DOMAIN_CHECK_DEADLINE_MS,
  MAX_EXPLICIT_SELECTORS,
  normalizeSelectors,
  toDomainDnsResult,
} from './check-domain.ts';
export { DEFAULT_DKIM_SELECTORS, type ParsedDkim, parseDkimRecord } from './dkim.ts';
export { type ParsedDmarc, parseDmarc } from './dmarc.ts';
export { type DmarcPolicyOptions, lookupDmarcPolicy } from './dmarc-policy.ts';
export {
  type CachedDomainCheck,
  createDomainCheckCache,
  DOMAIN_CACHE_MAX_ENTRIES,
  DOMAIN_CACHE_TTL_MS,
  type DomainCacheStatus,
  type DomainCheckCache,
  type DomainCheckCacheOptions,
  domainCacheKey,
} from './domain-check-cache.ts';
export { organizationalDomain, validateDomainName } from './domain-name.ts';
export { gradeFor } from './score.ts';
export { checkHost, type SpfCheckOptions, type SpfCheckResult, type SpfResultCode } from './spf-check.ts';
export {
  checkSpfQuery,
  SPF_CHECK_CONCURRENCY,
  SPF_CHECK_MAX_LOOKUPS,
  type SpfQuery,
  spfQueryDomain,
} from './spf-query.ts';
export { type ParsedSpf, parseSpf } from './spf-record.ts';
export * from './types.ts';
export { describeResolvers, dnsFailureLabel, dnsUnavailable, noOwnRecordRead } from './unchecked.ts';
