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
