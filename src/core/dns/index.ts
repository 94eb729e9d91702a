export type { BudgetedDnsClient, DnsBudgetOptions, DnsBudgetStats } from './budget.ts';
export { withBudget } from './budget.ts';
export type { DnsClient, DnsClientOptions, MxAnswer } from './client.ts';
export {
  createDnsClient,
  DEFAULT_DNS_TIMEOUT_MS,
  DEFAULT_DNS_TRIES,
  normalizeQueryName,
  reverseName,
} from './client.ts';
export type { DnsErrorCode } from './errors.ts';
export { DnsError, isAbsent, isDnsError, isTransient, mapDnsError } from './errors.ts';
export { parseDnsServers } from './servers.ts';
