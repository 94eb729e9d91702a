/**
 * Users, API keys, permissions, features and usage (CONTRACT §3).
 * `authenticate` is on every keyed request: a format check, one indexed lookup by hash
 * (optionally cached for `authCacheMs`; a revoke through this instance drops the cache entry, and a
 * `changeToken` that moves, such as SQLite's data_version after another process wrote, empties it).
 */
import { LRUCache } from 'lru-cache';
import { type Clock, DAY_MS, toIso, utcDay } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import type { Store } from '../store/index.ts';
import { mayManageKey } from './key-policy.ts';
import { newPasswordProblem } from './password-policy.ts';
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  hashPassword,
  KEY_PATTERN,
  randomBase62,
  randomPassword,
  sameDigest,
  verifyPassword,
} from './secrets.ts';
import { createAccountsStore, type KeyRow } from './store.ts';
import {
  type ApiKeyInfo,
  FEATURES,
  type Feature,
  PERMISSIONS,
  type Permission,
  type Principal,
  ROLES,
  type Role,
  TIER_NAMES,
  TIERS,
  type Tier,
  type TierName,
  type UsageDay,
  type User,
} from './types.ts';
import { createUsageRecorder } from './usage.ts';

export {
  checkKeyChoice,
  isAdmin,
  type KeyChoice,
  type KeyChoices,
  keyChoicesFor,
  knownFeatures,
  MEMBER_PERMISSIONS,
  MEMBER_TIERS,
  mayManageKey,
} from './key-policy.ts';
export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, newPasswordProblem } from './password-policy.ts';
export { KEY_PATTERN } from './secrets.ts';
export * from './types.ts';

/** Failed sign-ins to one account, from any addresses, that lock it. */
export const SIGN_IN_FAILURE_LIMIT = 10;
/** Failures older than this are forgotten. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** How long a lock lasts (an administrator can lift it sooner: `netrep users unlock`). */
export const SIGN_IN_LOCK_MS = 15 * 60_000;

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

export interface CreateKeyInput {
  ownerId: number;
  name: string;
  tier: TierName;
  permissions: Permission[];
  features?: Feature[];
}

/** Dashboard sessions last 12 hours. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/**
 * New passwords (password-policy.ts): 12 to 200 characters (scrypt takes any text; the cap keeps
 * hashing cheap), not a common one. Sign-in never applies it: older passwords still work.
 */
async function checkNewPassword(password: string): Promise<void> {
  const problem = await newPasswordProblem(password);
  if (problem) throw new AppError('INVALID_PARAMETER', problem);
}

function parseList<T extends string>(json: string, allowed: readonly T[]): T[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is T => allowed.includes(x as T)) : [];
  } catch {
    return [];
  }
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

export function createAccounts(options: AccountsOptions) {
  const { store, clock } = options;
  const db = createAccountsStore(store.db, store.dialect);
  const tiers: Record<TierName, Tier> = { ...TIERS };
  for (const [name, quota] of Object.entries(options.quotaOverrides ?? {}) as [TierName, number | null][]) {
    tiers[name] = { ...tiers[name], dailyQuota: quota };
  }
  const cacheMs = options.authCacheMs ?? 0;
  const cache = cacheMs > 0 ? new LRUCache<string, Principal>({ max: 50_000, ttl: cacheMs }) : null;
  const usage = createUsageRecorder(db, clock, options.usageFlushMs ?? 1000);
  let seenToken = options.changeToken?.() ?? 0;

  /** The cached principal of a key hash (after the change-token check), or undefined. */
  const cachedByHash = (hash: string): Principal | undefined => {
    if (!cache) return undefined;
    if (options.changeToken) {
      const token = options.changeToken();
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
    tier: tiers[(TIER_NAMES.includes(row.tier as TierName) ? row.tier : 'free') as TierName],
    permissions: new Set(parseList(row.permissions, PERMISSIONS)),
    features: new Set(parseList(row.features, FEATURES)),
  });

  const toInfo = (row: KeyRow): ApiKeyInfo => ({
    id: row.id,
    name: row.name,
    prefix: row.display_prefix,
    owner_email: row.owner_email,
    tier: (TIER_NAMES.includes(row.tier as TierName) ? row.tier : 'free') as TierName,
    permissions: parseList(row.permissions, PERMISSIONS),
    features: parseList(row.features, FEATURES),
    created_at: toIso(row.created_at),
    last_used_at: row.last_used_at === null ? null : toIso(row.last_used_at),
    revoked_at: row.revoked_at === null ? null : toIso(row.revoked_at),
  });

  const toUser = (row: {
    id: number;
    email: string;
    role: string;
    created_at: number;
    must_change_password: number;
    failed_sign_ins: number;
    failed_since: number | null;
    locked_until: number | null;
  }): User => {
    const lockedUntil = row.locked_until === null ? null : Number(row.locked_until);
    const windowOpen = row.failed_since !== null && Number(row.failed_since) > clock() - SIGN_IN_WINDOW_MS;
    return {
      id: Number(row.id),
      email: row.email,
      role: (ROLES.includes(row.role as Role) ? row.role : 'member') as Role,
      createdAt: row.created_at,
      mustChangePassword: Number(row.must_change_password) === 1,
      failedSignIns: windowOpen ? Number(row.failed_sign_ins) : 0,
      lockedUntil: lockedUntil !== null && lockedUntil > clock() ? lockedUntil : null,
    };
  };

  return {
    tiers,

    /**
     * Creates a user; without a password a random one is made and returned, and the user must
     * replace it at the first sign-in (`mustChangePassword`, default: when none was given).
     */
    async createUser(input: {
      email: string;
      role: Role;
      password?: string;
      mustChangePassword?: boolean;
    }): Promise<{ user: User; password: string }> {
      const email = input.email.trim().toLowerCase();
      if (!EMAIL.test(email)) throw new AppError('INVALID_PARAMETER', `invalid email: ${input.email}`);
      if (!ROLES.includes(input.role))
        throw new AppError('INVALID_PARAMETER', `role must be one of ${ROLES.join(', ')}`);
      if (await db.findUserByEmail(email))
        throw new AppError('INVALID_PARAMETER', `user ${email} already exists`);
      const password = input.password ?? randomPassword();
      await checkNewPassword(password);
      const mustChangePassword = input.mustChangePassword ?? input.password === undefined;
      const id = await db.insertUser({
        email,
        password_hash: await hashPassword(password),
        role: input.role,
        created_at: clock(),
        must_change_password: mustChangePassword ? 1 : 0,
      });
      const user = {
        id,
        email,
        role: input.role,
        createdAt: clock(),
        mustChangePassword,
        failedSignIns: 0,
        lockedUntil: null,
      };
      return { user, password };
    },

    /** On a store with no admin, creates one; returns its one-time password (null when one existed). */
    async ensureAdmin(email: string, password?: string): Promise<{ email: string; password: string } | null> {
      if ((await db.countAdmins()) > 0) return null;
      // The operator's chosen password (NETREP_ADMIN_PASSWORD) meets the rules for new ones.
      const problem = password ? await newPasswordProblem(password) : null;
      if (problem)
        throw new AppError(
          'INVALID_PARAMETER',
          `the first administrator's password (NETREP_ADMIN_PASSWORD) is refused: ${problem}`,
        );
      try {
        const created = await this.createUser({ email, role: 'admin', ...(password ? { password } : {}) });
        return { email: created.user.email, password: created.password };
      } catch (err) {
        // Two instances starting together on one PostgreSQL: the other one created it.
        if ((await db.countAdmins()) > 0) return null;
        throw err;
      }
    },

    async findUser(email: string): Promise<User | null> {
      const row = await db.findUserByEmail(email.trim().toLowerCase());
      return row ? toUser(row) : null;
    },

    async userById(id: number): Promise<User | null> {
      const row = await db.findUserById(id);
      return row ? toUser(row) : null;
    },

    async listUsers(): Promise<User[]> {
      return (await db.listUsers()).map(toUser);
    },

    /**
     * A sign-in: the user, or why not. Per account, whatever the client address (the per-address
     * limit is the `login` bucket): SIGN_IN_FAILURE_LIMIT failures within SIGN_IN_WINDOW_MS lock
     * the account for SIGN_IN_LOCK_MS; while locked even the right password is refused (it is
     * not checked), and a good sign-in forgets earlier failures.
     */
    async signIn(
      email: string,
      password: string,
    ): Promise<{ user: User } | { wrong: true } | { lockedUntil: number }> {
      const row = await db.findUserByEmail(email.trim().toLowerCase());
      if (!row) {
        // Spend the same time as a real check so absent accounts cannot be told apart.
        await verifyPassword(
          password,
          'scrypt$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
        );
        return { wrong: true };
      }
      const now = clock();
      if (row.locked_until !== null && Number(row.locked_until) > now)
        return { lockedUntil: Number(row.locked_until) };
      if (await verifyPassword(password, row.password_hash)) {
        if (Number(row.failed_sign_ins) !== 0 || row.locked_until !== null)
          await db.clearSignInFailures(row.id);
        return { user: toUser({ ...row, failed_sign_ins: 0, failed_since: null, locked_until: null }) };
      }
      const failures = await db.addFailedSignIn(row.id, now, now - SIGN_IN_WINDOW_MS);
      if (failures >= SIGN_IN_FAILURE_LIMIT) {
        await db.lockUser(row.id, now + SIGN_IN_LOCK_MS);
        return { lockedUntil: now + SIGN_IN_LOCK_MS };
      }
      return { wrong: true };
    },

    /** The user when the email and password match and the account is not locked, else null. */
    async verifyLogin(email: string, password: string): Promise<User | null> {
      const r = await this.signIn(email, password);
      return 'user' in r ? r.user : null;
    },

    /** Lifts a sign-in lock and forgets the failures; false when there is no such user. */
    async unlockUser(email: string): Promise<boolean> {
      const row = await db.findUserByEmail(email.trim().toLowerCase());
      if (!row) return false;
      await db.clearSignInFailures(row.id);
      return true;
    },

    /**
     * Replaces a user's password after checking the current one; clears `mustChangePassword` and
     * ends the user's other sessions. Throws INVALID_PARAMETER with a sentence for the form.
     */
    async changePassword(
      userId: number,
      current: string,
      next: string,
      keepSessionToken?: string,
    ): Promise<void> {
      const row = await db.findUserById(userId);
      if (!row || !(await verifyPassword(current, row.password_hash)))
        throw new AppError('INVALID_PARAMETER', 'The current password is wrong.');
      await checkNewPassword(next);
      if (next === current)
        throw new AppError('INVALID_PARAMETER', 'The new password must differ from the current one.');
      await db.setPassword(userId, await hashPassword(next), false);
      await db.deleteSessionsOf(userId, keepSessionToken ? hashApiKey(keepSessionToken) : '');
    },

    /** Creates a key; the secret is returned here once and never stored. */
    async createKey(input: CreateKeyInput): Promise<{ key: string; info: ApiKeyInfo }> {
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

    /** The principal for a presented key, or null when it is malformed, unknown or revoked. */
    async authenticate(presented: string): Promise<Principal | null> {
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

    /**
     * The digest a presented key is stored and cached under, or null when it is not a key at all
     * (a caller may keep it between requests of one client: fast-lookup.ts KeyMemo).
     */
    keyHash(presented: string): string | null {
      return KEY_PATTERN.test(presented) ? hashApiKey(presented) : null;
    },

    /**
     * authenticate without the store, for a key digested by keyHash: the principal when the key
     * is valid and cached, else null (unknown, revoked or simply not cached: the caller then
     * takes the async path).
     */
    cachedPrincipalByHash(hash: string): Principal | null {
      return cachedByHash(hash) ?? null;
    },

    recordUse(keyId: number): void {
      usage.record(keyId);
    },

    flushUsage: () => usage.flush(),

    async listKeys(filter: { ownerId?: number; includeRevoked?: boolean } = {}): Promise<ApiKeyInfo[]> {
      return (await db.listKeys(filter)).map(toInfo);
    },

    async keyInfo(id: number): Promise<ApiKeyInfo | null> {
      const row = await db.findKeyById(id);
      return row ? toInfo(row) : null;
    },

    async keyOwner(id: number): Promise<number | null> {
      return (await db.findKeyById(id))?.owner_id ?? null;
    },

    /** Revokes immediately and irreversibly; false when unknown or already revoked. */
    async revokeKey(id: number): Promise<boolean> {
      const row = await db.findKeyById(id);
      const done = await db.revokeKey(id, clock());
      if (row) cache?.delete(row.key_hash);
      return done;
    },

    /**
     * Revokes a key on behalf of a signed-in user (key-policy.ts: their own, or any for an
     * administrator); false when there is no such key for them. An already revoked key stays so.
     */
    async revokeKeyAs(user: Pick<User, 'id' | 'role'>, id: number): Promise<boolean> {
      const row = Number.isSafeInteger(id) ? await db.findKeyById(id) : undefined;
      if (!mayManageKey(user, row?.owner_id ?? null)) return false;
      await db.revokeKey(id, clock());
      if (row) cache?.delete(row.key_hash);
      return true;
    },

    async setFeatures(id: number, features: Feature[]): Promise<ApiKeyInfo | null> {
      const row = await db.findKeyById(id);
      if (!row) return null;
      await db.setFeatures(id, JSON.stringify([...new Set(features)].sort()));
      cache?.delete(row.key_hash);
      return toInfo((await db.findKeyById(id)) ?? row);
    },

    /** Turns one feature of a key on or off, keeping the others; null for an unknown key. */
    async setFeature(id: number, feature: Feature, on: boolean): Promise<ApiKeyInfo | null> {
      const row = await db.findKeyById(id);
      if (!row) return null;
      const features = new Set(parseList(row.features, FEATURES));
      if (on) features.add(feature);
      else features.delete(feature);
      await db.setFeatures(id, JSON.stringify([...features].sort()));
      cache?.delete(row.key_hash);
      return toInfo((await db.findKeyById(id)) ?? row);
    },

    /** Requests per UTC day for the last `days` days, oldest first, zero-filled. */
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

    /** Starts a dashboard session; the token goes in a cookie, only its hash is stored. */
    async createSession(userId: number, ttlMs = SESSION_TTL_MS): Promise<{ token: string; csrf: string }> {
      const token = randomBase62(43);
      const csrf = randomBase62(32);
      const now = clock();
      await db.deleteExpiredSessions(now);
      await db.insertSession({
        id_hash: hashApiKey(token),
        user_id: userId,
        csrf_token: csrf,
        created_at: now,
        expires_at: now + ttlMs,
      });
      return { token, csrf };
    },

    /** The user and CSRF token of a live session, or null. */
    async session(token: string): Promise<{ user: User; csrf: string } | null> {
      if (!/^[A-Za-z0-9]{43}$/.test(token)) return null;
      const row = await db.findSession(hashApiKey(token));
      if (!row || row.expires_at <= clock()) return null;
      const user = await db.findUserById(row.user_id);
      return user ? { user: toUser(user), csrf: row.csrf_token } : null;
    },

    async endSession(token: string): Promise<void> {
      await db.deleteSession(hashApiKey(token));
    },

    close: () => usage.close(),
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
