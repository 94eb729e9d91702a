/**
 * API keys. `authenticate` is on every keyed request: a format check, one indexed lookup by hash
 * (optionally cached for `authCacheMs`; a revoke through this instance drops the cache entry, and a
 * `changeToken` that moves, such as SQLite's data_version after another process wrote, empties it).
 */
import { LRUCache } from 'lru-cache';
import { type Clock, toIso } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { mayManageKey } from './key-policy.ts';
import { displayPrefix, generateApiKey, hashApiKey, KEY_PATTERN, sameDigest } from './secrets.ts';
import type { AccountsStore, KeyRow } from './store.ts';
import {
  type ApiKeyInfo,
  type CreateKeyInput,
  FEATURES,
  type KeyAccounts,
  PERMISSIONS,
  type Principal,
  ROLES,
  type Role,
  TIER_NAMES,
  type Tier,
  type TierName,
} from './types.ts';

interface KeyOptions {
  tiers: Record<TierName, Tier>;
  /** Cache positive key lookups this long (0: every request reads the store). */
  authCacheMs: number;
  /** A value that changes whenever another process may have changed keys (accounts/index.ts). */
  changeToken?: (() => number) | undefined;
}

function parseList<T extends string>(json: string, allowed: readonly T[]): T[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is T => allowed.includes(x as T)) : [];
  } catch {
    return [];
  }
}

const tierName = (tier: string): TierName =>
  (TIER_NAMES.includes(tier as TierName) ? tier : 'free') as TierName;

function toInfo(row: KeyRow): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: row.display_prefix,
    owner_email: row.owner_email,
    tier: tierName(row.tier),
    permissions: parseList(row.permissions, PERMISSIONS),
    features: parseList(row.features, FEATURES),
    created_at: toIso(row.created_at),
    last_used_at: row.last_used_at === null ? null : toIso(row.last_used_at),
    revoked_at: row.revoked_at === null ? null : toIso(row.revoked_at),
  };
}

/** The trimmed name of a key about to be created; throws INVALID_PARAMETER for a bad input. */
function checkKeyInput(input: CreateKeyInput): string {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 100)
    throw new AppError('INVALID_PARAMETER', 'key name must be 1-100 characters');
  if (!TIER_NAMES.includes(input.tier))
    throw new AppError('INVALID_PARAMETER', `tier must be one of ${TIER_NAMES.join(', ')}`);
  for (const p of input.permissions) {
    if (!PERMISSIONS.includes(p)) throw new AppError('INVALID_PARAMETER', `unknown permission ${p}`);
  }
  for (const f of input.features ?? []) {
    if (!FEATURES.includes(f)) throw new AppError('INVALID_PARAMETER', `unknown feature ${f}`);
  }
  return name;
}

export function createKeys(db: AccountsStore, clock: Clock, options: KeyOptions): KeyAccounts {
  const { tiers, changeToken } = options;
  const cache =
    options.authCacheMs > 0
      ? new LRUCache<string, Principal>({ max: 50_000, ttl: options.authCacheMs })
      : null;
  let seenToken = changeToken?.() ?? 0;

  /** The cached principal of a key hash (after the change-token check), or undefined. */
  const cachedByHash = (hash: string): Principal | undefined => {
    if (!cache) return undefined;
    if (changeToken) {
      const token = changeToken();
      if (token !== seenToken) {
        cache.clear();
        seenToken = token;
      }
    }
    return cache.get(hash);
  };

  const toPrincipal = (row: KeyRow): Principal => ({
    keyId: row.id,
    ownerId: row.owner_id,
    ownerRole: (ROLES.includes(row.owner_role as Role) ? row.owner_role : 'member') as Role,
    name: row.name,
    tier: tiers[tierName(row.tier)],
    permissions: new Set(parseList(row.permissions, PERMISSIONS)),
    features: new Set(parseList(row.features, FEATURES)),
  });

  return {
    async createKey(input) {
      const name = checkKeyInput(input);
      const key = generateApiKey();
      const id = await db.insertKey({
        owner_id: input.ownerId,
        name,
        key_hash: hashApiKey(key),
        display_prefix: displayPrefix(key),
        tier: input.tier,
        permissions: JSON.stringify([...new Set(input.permissions)].sort()),
        features: JSON.stringify([...new Set(input.features ?? [])].sort()),
        created_at: clock(),
      });
      const row = await db.findKeyById(id);
      if (!row) throw new Error('key vanished after insert');
      return { key, info: toInfo(row) };
    },

    async authenticate(presented) {
      if (!KEY_PATTERN.test(presented)) return null;
      const hash = hashApiKey(presented);
      const cached = cachedByHash(hash);
      if (cached) return cached;
      const row = await db.findKeyByHash(hash);
      if (!row || !sameDigest(row.key_hash, hash) || row.revoked_at !== null) return null;
      const principal = toPrincipal(row);
      cache?.set(hash, principal);
      return principal;
    },

    keyHash(presented) {
      return KEY_PATTERN.test(presented) ? hashApiKey(presented) : null;
    },

    cachedPrincipalByHash(hash) {
      return cachedByHash(hash) ?? null;
    },

    async listKeys(filter = {}) {
      return (await db.listKeys(filter)).map(toInfo);
    },

    async keyInfo(id) {
      const row = await db.findKeyById(id);
      return row ? toInfo(row) : null;
    },

    async keyOwner(id) {
      return (await db.findKeyById(id))?.owner_id ?? null;
    },

    async revokeKey(id) {
      const row = await db.findKeyById(id);
      const done = await db.revokeKey(id, clock());
      if (row) cache?.delete(row.key_hash);
      return done;
    },

    async revokeKeyAs(user, id) {
      const row = Number.isSafeInteger(id) ? await db.findKeyById(id) : undefined;
      if (!mayManageKey(user, row?.owner_id ?? null)) return false;
      await db.revokeKey(id, clock());
      if (row) cache?.delete(row.key_hash);
      return true;
    },

    async setFeatures(id, features) {
      const row = await db.findKeyById(id);
      if (!row) return null;
      await db.setFeatures(id, JSON.stringify([...new Set(features)].sort()));
      cache?.delete(row.key_hash);
      return toInfo((await db.findKeyById(id)) ?? row);
    },

    async setFeature(id, feature, on) {
      const row = await db.findKeyById(id);
      if (!row) return null;
      const features = new Set(parseList(row.features, FEATURES));
      if (on) features.add(feature);
      else features.delete(feature);
      await db.setFeatures(id, JSON.stringify([...features].sort()));
      cache?.delete(row.key_hash);
      return toInfo((await db.findKeyById(id)) ?? row);
    },
  };
}
