/**
 * What a keyed request costs and may do, in one place for the access hook (plugins/access.ts)
 * and the lookup's fast path (fast-lookup.ts), so the two cannot drift: the permission rule and
 * the charge (daily quota, then the usage count). The envelope both write is plugins/errors.ts
 * errorBody; the fast path writes its success body itself (the serializer's order, checked byte
 * for byte by fast-lookup.test.ts), which is what keeps it fast.
 */
import type { Accounts, Permission, Principal } from '../accounts/index.ts';
import type { LimitState, Limits } from '../limits/index.ts';

/** A key may use a route that needs `permission` when it holds it or `admin` (spec §5). */
export function keyMay(principal: Principal, permission: Permission): boolean {
  return principal.permissions.has(permission) || principal.permissions.has('admin');
}

/**
 * Charges one request to the key: its daily quota (rejects with RATE_LIMIT_EXCEEDED past it),
 * then its usage count. An unlimited tier is counted but not charged, and answered at once
 * (null, no promise), so the fast path stays synchronous for it.
 */
export function chargeKey(
  accounts: Accounts,
  limits: Limits,
  principal: Principal,
): Promise<LimitState | null> | null {
  const quota = principal.tier.dailyQuota;
  if (quota === null) {
    accounts.recordUse(principal.keyId);
    return null;
  }
  return limits.consumeDaily(principal.keyId, quota).then((state) => {
    accounts.recordUse(principal.keyId);
    return state;
  });
}
