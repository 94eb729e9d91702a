/** Dashboard sessions: the token goes in a cookie, only its hash is stored. */
import type { Clock } from '../core/clock.ts';
import { hashApiKey, randomBase62 } from './secrets.ts';
import type { AccountsStore } from './store.ts';
import type { SessionAccounts } from './types.ts';
import { toUser } from './users.ts';

/** Dashboard sessions last 12 hours. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;

export function createSessions(db: AccountsStore, clock: Clock): SessionAccounts {
  return {
    async createSession(userId, ttlMs = SESSION_TTL_MS) {
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

    async session(token) {
      if (!/^[A-Za-z0-9]{43}$/.test(token)) return null;
      const row = await db.findSession(hashApiKey(token));
      if (!row || row.expires_at <= clock()) return null;
      const user = await db.findUserById(row.user_id);
      return user ? { user: toUser(user, clock()), csrf: row.csrf_token } : null;
    },

    async endSession(token) {
      await db.deleteSession(hashApiKey(token));
    },
  };
}
