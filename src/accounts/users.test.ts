/** toUser: a users row as the User it describes at a given time (sign-in failures and locks). */
import { describe, expect, it } from 'vitest';
import { SIGN_IN_WINDOW_MS, toUser, type UserRow } from './users.ts';

const NOW = Date.UTC(2026, 10, 27, 12);
const row: UserRow = {
  id: 7,
  email: 'ops@example.test',
  role: 'admin',
  created_at: NOW - 86_400_000,
  must_change_password: 1,
  failed_sign_ins: 3,
  failed_since: NOW - 60_000,
  locked_until: NOW + 60_000,
};

describe('toUser', () => {
  it('counts failures inside the window and a lock that has not ended', () => {
    expect(toUser(row, NOW)).toEqual({
      id: 7,
      email: 'ops@example.test',
      role: 'admin',
      createdAt: NOW - 86_400_000,
      mustChangePassword: true,
      failedSignIns: 3,
      lockedUntil: NOW + 60_000,
    });
  });

  it('forgets failures older than the window and a lock that has ended', () => {
    const later = NOW + SIGN_IN_WINDOW_MS;
    const u = toUser(row, later);
    expect(u.failedSignIns).toBe(0);
    expect(u.lockedUntil).toBeNull();
  });

  it('reads an unknown role as member and 0 as no forced change', () => {
    const u = toUser({ ...row, role: 'root', must_change_password: 0, failed_since: null }, NOW);
    expect(u.role).toBe('member');
    expect(u.mustChangePassword).toBe(false);
    expect(u.failedSignIns).toBe(0);
  });
});
