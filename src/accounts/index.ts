/**
 * Users, API keys, permissions, features and usage (CONTRACT §3): createAccounts puts together
 * users.ts (users, sign-in), keys.ts (API keys, the authentication cache), sessions.ts
 * (dashboard sessions) and usage.ts (request counts); the interface is `Accounts` in types.ts.
 */
import { type Clock, DAY_MS, utcDay } from '../core/clock.ts';
import type { Store } from '../store/index.ts';
import { createKeys } from './keys.ts';
import { createSessions } from './sessions.ts';
import { createAccountsStore } from './store.ts';
import { type Accounts, TIER_NAMES, TIERS, type Tier, type TierName, type UsageDay } from './types.ts';
import { createUsageRecorder } from './usage.ts';
import { createUserAccounts } from './users.ts';

export {
  checkKeyChoice,
  isAdmin,
  keyChoicesFor,
  knownFeatures,
  mayManageKey,
} from './key-policy.ts';
export { MIN_PASSWORD_LENGTH } from './password-policy.ts';
export * from './types.ts';
export { SIGN_IN_FAILURE_LIMIT, SIGN_IN_LOCK_MS } from './users.ts';

export interface AccountsOptions {
  store: Store;
  clock: Clock;
  /** Cache positive key lookups this long (0: every request reads the store). */
  authCacheMs?: number;
  /**
   * A value that changes whenever another process may have changed keys (SQLite's
   * `PRAGMA data_version`); a change empties the cache, so a key revoked with the CLI
   * stops working on the next request even while cached.
   */
  changeToken?: () => number;
  /** Per-tier daily quota overrides (NETREP_TIER_QUOTAS). */
  quotaOverrides?: Partial<Record<TierName, number | null>>;
  usageFlushMs?: number;
}

export function parseQuotaOverrides(text: string): Partial<Record<TierName, number | null>> {
  const out: Partial<Record<TierName, number | null>> = {};
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, value] = part.split('=').map((s) => s.trim());
    if (!TIER_NAMES.includes(name as TierName)) throw new Error(`NETREP_TIER_QUOTAS: unknown tier ${name}`);
    if (value === 'unlimited') out[name as TierName] = null;
    else {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0)
        throw new Error(`NETREP_TIER_QUOTAS: bad quota for ${name}: ${value}`);
      out[name as TierName] = n;
    }
  }
  return out;
}

export function createAccounts(options: AccountsOptions): Accounts {
  const { store, clock } = options;
  const db = createAccountsStore(store.db, store.dialect);
  const tiers: Record<TierName, Tier> = { ...TIERS };
  for (const [name, quota] of Object.entries(options.quotaOverrides ?? {}) as [TierName, number | null][]) {
    tiers[name] = { ...tiers[name], dailyQuota: quota };
  }
  const usage = createUsageRecorder(db, clock, options.usageFlushMs ?? 1000);
  const keys = createKeys(db, clock, {
    tiers,
    authCacheMs: options.authCacheMs ?? 0,
    changeToken: options.changeToken,
  });

  return {
    tiers,
    ...createUserAccounts(db, clock),
    ...keys,
    ...createSessions(db, clock),

    recordUse(keyId: number): void {
      usage.record(keyId);
    },

    flushUsage: () => usage.flush(),

    async usage(keyId: number, days = 30): Promise<UsageDay[]> {
      await usage.flush();
      const now = clock();
      const from = utcDay(now - (days - 1) * DAY_MS);
      const rows = new Map((await db.usageSince(keyId, from)).map((r) => [r.day, Number(r.requests)]));
      const out: UsageDay[] = [];
      for (let i = days - 1; i >= 0; i--) {
        const day = utcDay(now - i * DAY_MS);
        out.push({ day, requests: rows.get(day) ?? 0 });
      }
      return out;
    },

    close: () => usage.close(),
  };
}
