/**
 * Users and their sign-in: creation, the first administrator, the per-account sign-in lock
 * (README.md) and password changes.
 */
import type { Clock } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { newPasswordProblem } from './password-policy.ts';
import { hashApiKey, hashPassword, randomPassword, verifyPassword } from './secrets.ts';
import type { AccountsStore } from './store.ts';
import { ROLES, type Role, type SignInResult, type User, type UserAccounts } from './types.ts';

/** Failed sign-ins to one account, from any addresses, that lock it. */
export const SIGN_IN_FAILURE_LIMIT = 10;
/** Failures older than this are forgotten. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** How long a lock lasts (an administrator can lift it sooner: `netrep users unlock`). */
export const SIGN_IN_LOCK_MS = 15 * 60_000;

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/**
 * New passwords (password-policy.ts): 12 to 200 characters (scrypt takes any text; the cap keeps
 * hashing cheap), not a common one. Sign-in never applies it: older passwords still work.
 */
async function checkNewPassword(password: string): Promise<void> {
  const problem = await newPasswordProblem(password);
  if (problem) throw new AppError('INVALID_PARAMETER', problem);
}

export interface UserRow {
  id: number;
  email: string;
  role: string;
  created_at: number;
  must_change_password: number;
  failed_sign_ins: number;
  failed_since: number | null;
  locked_until: number | null;
}

/** A users row as the User it describes at `now` (failures outside the window do not count). */
export function toUser(row: UserRow, now: number): User {
  const lockedUntil = row.locked_until === null ? null : Number(row.locked_until);
  const windowOpen = row.failed_since !== null && Number(row.failed_since) > now - SIGN_IN_WINDOW_MS;
  return {
    id: Number(row.id),
    email: row.email,
    role: (ROLES.includes(row.role as Role) ? row.role : 'member') as Role,
    createdAt: row.created_at,
    mustChangePassword: Number(row.must_change_password) === 1,
    failedSignIns: windowOpen ? Number(row.failed_sign_ins) : 0,
    lockedUntil: lockedUntil !== null && lockedUntil > now ? lockedUntil : null,
  };
}

/**
 * A sign-in. Per account, whatever the client address (the per-address limit is the `login`
 * bucket): SIGN_IN_FAILURE_LIMIT failures within SIGN_IN_WINDOW_MS lock the account for
 * SIGN_IN_LOCK_MS; while locked even the right password is refused (it is not checked), and a
 * good sign-in forgets earlier failures.
 */
async function signIn(
  db: AccountsStore,
  clock: Clock,
  email: string,
  password: string,
): Promise<SignInResult> {
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
    if (Number(row.failed_sign_ins) !== 0 || row.locked_until !== null) await db.clearSignInFailures(row.id);
    return {
      user: toUser({ ...row, failed_sign_ins: 0, failed_since: null, locked_until: null }, clock()),
    };
  }
  const failures = await db.addFailedSignIn(row.id, now, now - SIGN_IN_WINDOW_MS);
  if (failures >= SIGN_IN_FAILURE_LIMIT) {
    await db.lockUser(row.id, now + SIGN_IN_LOCK_MS);
    return { lockedUntil: now + SIGN_IN_LOCK_MS };
  }
  return { wrong: true };
}

export function createUserAccounts(db: AccountsStore, clock: Clock): UserAccounts {
  const users: UserAccounts = {
    async createUser(input) {
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

    async ensureAdmin(email, password) {
      if ((await db.countAdmins()) > 0) return null;
      // The operator's chosen password (NETREP_ADMIN_PASSWORD) meets the rules for new ones.
      const problem = password ? await newPasswordProblem(password) : null;
      if (problem)
        throw new AppError(
          'INVALID_PARAMETER',
          `the first administrator's password (NETREP_ADMIN_PASSWORD) is refused: ${problem}`,
        );
      try {
        const created = await users.createUser({ email, role: 'admin', ...(password ? { password } : {}) });
        return { email: created.user.email, password: created.password };
      } catch (err) {
        // Two instances starting together on one PostgreSQL: the other one created it.
        if ((await db.countAdmins()) > 0) return null;
        throw err;
      }
    },

    async findUser(email) {
      const row = await db.findUserByEmail(email.trim().toLowerCase());
      return row ? toUser(row, clock()) : null;
    },

    async userById(id) {
      const row = await db.findUserById(id);
      return row ? toUser(row, clock()) : null;
    },

    async listUsers() {
      return (await db.listUsers()).map((row: UserRow) => toUser(row, clock()));
    },

    signIn: (email, password) => signIn(db, clock, email, password),

    async verifyLogin(email, password) {
      const r = await users.signIn(email, password);
      return 'user' in r ? r.user : null;
    },

    async unlockUser(email) {
      const row = await db.findUserByEmail(email.trim().toLowerCase());
      if (!row) return false;
      await db.clearSignInFailures(row.id);
      return true;
    },

    async changePassword(userId, current, next, keepSessionToken) {
      const row = await db.findUserById(userId);
      if (!row || !(await verifyPassword(current, row.password_hash)))
        throw new AppError('INVALID_PARAMETER', 'The current password is wrong.');
      await checkNewPassword(next);
      if (next === current)
        throw new AppError('INVALID_PARAMETER', 'The new password must differ from the current one.');
      await db.setPassword(userId, await hashPassword(next), false);
      await db.deleteSessionsOf(userId, keepSessionToken ? hashApiKey(keepSessionToken) : '');
    },
  };
  return users;
}
