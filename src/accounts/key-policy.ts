/**
 * Who may do what with keys and the operator screens (CONTRACT §3): members create keys on the
 * self-service tiers with any permission but `admin` and manage only their own keys;
 * administrators choose any tier, permission and feature, manage every key and the blocklist.
 */
import {
  FEATURES,
  type Feature,
  PERMISSIONS,
  type Permission,
  type Role,
  TIER_NAMES,
  type TierName,
  type User,
} from './types.ts';

/** The tiers a member may pick for their own keys. */
export const MEMBER_TIERS: readonly TierName[] = ['free', 'starter'];
export const MEMBER_PERMISSIONS: readonly Permission[] = PERMISSIONS.filter((p) => p !== 'admin');

export interface KeyChoices {
  tiers: readonly TierName[];
  permissions: readonly Permission[];
  /** Features are set only by an administrator: empty for members. */
  features: readonly Feature[];
}

export function isAdmin(user: Pick<User, 'role'>): boolean {
  return user.role === 'admin';
}

export function keyChoicesFor(role: Role): KeyChoices {
  return role === 'admin'
    ? { tiers: TIER_NAMES, permissions: PERMISSIONS, features: FEATURES }
    : { tiers: MEMBER_TIERS, permissions: MEMBER_PERMISSIONS, features: [] };
}

export type KeyChoice =
  | { ok: true; tier: TierName; permissions: Permission[] }
  | { ok: false; error: string };

/** A requested tier and permissions, checked against what the role may choose. */
export function checkKeyChoice(role: Role, tier: string, permissions: readonly string[]): KeyChoice {
  const choices = keyChoicesFor(role);
  const offeredTier = choices.tiers.find((t) => t === tier);
  if (offeredTier === undefined) return { ok: false, error: 'Choose one of the offered tiers.' };
  const offered = permissions.map((p) => choices.permissions.find((c) => c === p));
  if (offered.some((p) => p === undefined)) return { ok: false, error: 'Choose permissions from the list.' };
  if (offered.length === 0) return { ok: false, error: 'Choose at least one permission.' };
  return { ok: true, tier: offeredTier, permissions: offered.filter((p) => p !== undefined) };
}

/**
 * Owners manage their own keys, administrators every key. `ownerId` null is an unknown key. A
 * caller answers another owner's key as "not found", not "forbidden", so ids reveal nothing.
 */
export function mayManageKey(user: Pick<User, 'id' | 'role'>, ownerId: number | null): boolean {
  return ownerId !== null && (ownerId === user.id || isAdmin(user));
}

/** The known features among submitted values (unknown ones are dropped). */
export function knownFeatures(values: readonly string[]): Feature[] {
  return FEATURES.filter((f) => values.includes(f));
}
