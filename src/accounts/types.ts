import { type Static, Type } from '@sinclair/typebox';

/** CONTRACT §3: the permissions a key may hold. */
export const PERMISSIONS = [
  'ip:read',
  'asn:read',
  'blocklist:read',
  'email:read',
  'telemetry:write',
  'feeds:read',
  'audit:write',
  'admin',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** Features are set only by an administrator. */
export const FEATURES = ['telemetry_ingest'] as const;
export type Feature = (typeof FEATURES)[number];

export const TIER_NAMES = ['free', 'starter', 'pro', 'enterprise'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export interface Tier {
  name: TierName;
  /** Requests per UTC day; null is unlimited. */
  dailyQuota: number | null;
  /** Largest IP batch the tier may send. */
  batchSize: number;
  /** Premium feeds are entitled. */
  premium: boolean;
}

/** Spec §8 key-level table. */
export const TIERS: Record<TierName, Tier> = {
  free: { name: 'free', dailyQuota: 1_000, batchSize: 10, premium: false },
  starter: { name: 'starter', dailyQuota: 10_000, batchSize: 100, premium: false },
  pro: { name: 'pro', dailyQuota: 100_000, batchSize: 500, premium: true },
  enterprise: { name: 'enterprise', dailyQuota: null, batchSize: 1_000, premium: true },
};

export const ROLES = ['admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export interface User {
  id: number;
  email: string;
  role: Role;
  createdAt: number;
  /** The password was not chosen by the user (one-time or generated): change it at sign-in. */
  mustChangePassword: boolean;
  /** Failed sign-ins within the current window (accounts SIGN_IN_WINDOW_MS). */
  failedSignIns: number;
  /** Sign-ins are refused until then (epoch ms) after too many failures; null when not locked. */
  lockedUntil: number | null;
}

/** What a request authenticated with a key may do. */
export interface Principal {
  keyId: number;
  ownerId: number;
  ownerRole: Role;
  name: string;
  tier: Tier;
  permissions: ReadonlySet<Permission>;
  features: ReadonlySet<Feature>;
}

export const ApiKeyInfo = Type.Object(
  {
    id: Type.Integer({ description: 'Key id (used to revoke it).' }),
    name: Type.String(),
    prefix: Type.String({ description: 'The first 8 characters of the key, for recognition.' }),
    owner_email: Type.String(),
    tier: Type.Union(TIER_NAMES.map((t) => Type.Literal(t))),
    permissions: Type.Array(Type.String()),
    features: Type.Array(Type.String()),
    created_at: Type.String({ format: 'date-time' }),
    last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { description: 'An API key as listed (the secret itself is never stored).' },
);
export type ApiKeyInfo = Static<typeof ApiKeyInfo>;

export interface UsageDay {
  day: string;
  requests: number;
}

export interface CreateKeyInput {
  ownerId: number;
  name: string;
  tier: TierName;
  permissions: Permission[];
  features?: Feature[];
}

/** The outcome of a sign-in: the user, a wrong email or password, or a locked account. */
export type SignInResult = { user: User } | { wrong: true } | { lockedUntil: number };

/** Users and their sign-in (users.ts). */
export interface UserAccounts {
  /**
   * Creates a user; without a password a random one is made and returned, and the user must
   * replace it at the first sign-in (`mustChangePassword`, default: when none was given).
   */
  createUser(input: {
    email: string;
    role: Role;
    password?: string;
    mustChangePassword?: boolean;
  }): Promise<{ user: User; password: string }>;
  /** On a store with no admin, creates one; returns its one-time password (null when one existed). */
  ensureAdmin(email: string, password?: string): Promise<{ email: string; password: string } | null>;
  findUser(email: string): Promise<User | null>;
  userById(id: number): Promise<User | null>;
  listUsers(): Promise<User[]>;
  /** A sign-in: the user, or why not (per-account lock: accounts/README.md). */
  signIn(email: string, password: string): Promise<SignInResult>;
  /** The user when the email and password match and the account is not locked, else null. */
  verifyLogin(email: string, password: string): Promise<User | null>;
  /** Lifts a sign-in lock and forgets the failures; false when there is no such user. */
  unlockUser(email: string): Promise<boolean>;
  /**
   * Replaces a user's password after checking the current one; clears `mustChangePassword` and
   * ends the user's other sessions. Throws INVALID_PARAMETER with a sentence for the form.
   */
  changePassword(userId: number, current: string, next: string, keepSessionToken?: string): Promise<void>;
}

/** API keys: creation, authentication (cached), revocation and features (keys.ts). */
export interface KeyAccounts {
  /** Creates a key; the secret is returned here once and never stored. */
  createKey(input: CreateKeyInput): Promise<{ key: string; info: ApiKeyInfo }>;
  /** The principal for a presented key, or null when it is malformed, unknown or revoked. */
  authenticate(presented: string): Promise<Principal | null>;
  /**
   * The digest a presented key is stored and cached under, or null when it is not a key at all
   * (a caller may keep it between requests of one client: fast-lookup.ts KeyMemo).
   */
  keyHash(presented: string): string | null;
  /**
   * authenticate without the store, for a key digested by keyHash: the principal when the key
   * is valid and cached, else null (unknown, revoked or simply not cached: the caller then
   * takes the async path).
   */
  cachedPrincipalByHash(hash: string): Principal | null;
  listKeys(filter?: { ownerId?: number; includeRevoked?: boolean }): Promise<ApiKeyInfo[]>;
  keyInfo(id: number): Promise<ApiKeyInfo | null>;
  keyOwner(id: number): Promise<number | null>;
  /** Revokes immediately and irreversibly; false when unknown or already revoked. */
  revokeKey(id: number): Promise<boolean>;
  /**
   * Revokes a key on behalf of a signed-in user (key-policy.ts: their own, or any for an
   * administrator); false when there is no such key for them. An already revoked key stays so.
   */
  revokeKeyAs(user: Pick<User, 'id' | 'role'>, id: number): Promise<boolean>;
  setFeatures(id: number, features: Feature[]): Promise<ApiKeyInfo | null>;
  /** Turns one feature of a key on or off, keeping the others; null for an unknown key. */
  setFeature(id: number, feature: Feature, on: boolean): Promise<ApiKeyInfo | null>;
}

/** Dashboard sessions (sessions.ts). */
export interface SessionAccounts {
  /** Starts a dashboard session; the token goes in a cookie, only its hash is stored. */
  createSession(userId: number, ttlMs?: number): Promise<{ token: string; csrf: string }>;
  /** The user and CSRF token of a live session, or null. */
  session(token: string): Promise<{ user: User; csrf: string } | null>;
  endSession(token: string): Promise<void>;
}

/** Users, API keys, sessions and usage: what createAccounts returns. */
export interface Accounts extends UserAccounts, KeyAccounts, SessionAccounts {
  /** The tiers with NETREP_TIER_QUOTAS applied. */
  readonly tiers: Record<TierName, Tier>;
  recordUse(keyId: number): void;
  flushUsage(): Promise<void>;
  /** Requests per UTC day for the last `days` days, oldest first, zero-filled. */
  usage(keyId: number, days?: number): Promise<UsageDay[]>;
  close(): Promise<void>;
}
