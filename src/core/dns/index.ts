export { withBudget } from './budget.ts';
export type { DnsClient } from './client.ts';
export {
  createDnsClient,
  reverseName,
} from './client.ts';
export { isAbsent, isDnsError, isTransient } from './errors.ts';
