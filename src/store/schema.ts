/**
 * Table types for Kysely. Times are epoch milliseconds (UTC); flags are 0/1; JSON is text.
 * Each domain's tables are declared here so one `Database` type covers the whole store.
 */
import type { Generated } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  email: string;
  password_hash: string;
  role: string;
  created_at: number;
  /** 1 until the user replaces a password they did not choose (migration 0010). */
  must_change_password: Generated<number>;
  /** Failed sign-ins since `failed_since` (migration 0011). */
  failed_sign_ins: Generated<number>;
  failed_since: number | null;
  /** Sign-ins refused until then (epoch ms), after too many failures (migration 0011). */
  locked_until: number | null;
}

export interface ApiKeysTable {
  id: Generated<number>;
  owner_id: number;
  name: string;
  key_hash: string;
  display_prefix: string;
  tier: string;
  /** JSON array of permission names. */
  permissions: string;
  /** JSON array of feature names. */
  features: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface ApiKeyUsageTable {
  key_id: number;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  requests: number;
}

export interface SessionsTable {
  id_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

export interface Database {
  users: UsersTable;
  api_keys: ApiKeysTable;
  api_key_usage: ApiKeyUsageTable;
  sessions: SessionsTable;
}
