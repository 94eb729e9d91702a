/**
 * Sign-in that resists guessing (issue 32), on both stores through the real app: the failed
 * sign-in limit is per account as well as per address, a lock holds against the right password
 * from any address until it runs out or an administrator lifts it, and a user whose password
 * predates the length rule still signs in.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import { SIGN_IN_FAILURE_LIMIT, SIGN_IN_LOCK_MS } from '../../accounts/index.ts';
import { hashPassword } from '../../accounts/secrets.ts';
import { createAccountsStore } from '../../accounts/store.ts';

const START = '2026-11-27T18:00:00Z';
/** The account each test guesses at: a fresh one per test, so tests share the app, not a lock. */
const USER = { email: '', password: 'a-long-chosen-passphrase' };

describe.each(STORE_KINDS)('dashboard sign-in limits (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: TestApp;
  let account = 0;

  // One app per store kind (building it is most of a test's time); each test starts at the
  // same instant with an account of its own, and every sign-in comes from an address not used before.
  beforeAll(async () => {
    if (skip) return;
    t = await createTestApp(kind, { clockStart: START });
  });
  beforeEach(async () => {
    if (skip) return;
    t.clock.set(Date.parse(START));
    USER.email = `guessed-${++account}@example.test`;
    await t.app.services.accounts.createUser({ ...USER, role: 'member' });
  });
  afterAll(async () => {
    await t?.close();
  });

  let n = 0;
  /** A sign-in from its own client address each time (the per-address bucket never fills). */
  const signIn = (password: string, email = USER.email) =>
    t.app.http.inject({
      method: 'POST',
      url: '/dashboard/login',
      remoteAddress: `198.51.100.${(n++ % 250) + 1}`,
      payload: { email, password },
    });

  it.skipIf(skip)(
    'ten failures from ten addresses lock the account, even against the right password',
    async () => {
      for (let i = 0; i < SIGN_IN_FAILURE_LIMIT - 1; i++) {
        const r = await signIn(`wrong-guess-${i}`);
        expect(r.statusCode, `failure ${i + 1}`).toBe(401);
        expect(r.body).toContain('Wrong email or password');
      }
      const listed = async () =>
        (await t.app.services.accounts.listUsers()).find((u) => u.email === USER.email);
      expect(await listed()).toMatchObject({ failedSignIns: 9, lockedUntil: null });

      const tenth = await signIn('wrong-guess-9');
      expect(tenth.statusCode).toBe(429);
      expect(tenth.body).toContain('locked until 18:15 UTC');
      expect(tenth.headers['retry-after']).toBe(String(SIGN_IN_LOCK_MS / 1000));
      // The right password, from yet another address, is refused while the lock holds.
      const right = await signIn(USER.password);
      expect(right.statusCode).toBe(429);
      expect(right.headers['set-cookie']).toBeUndefined();
      // What an administrator sees (`netrep users list` prints it).
      expect(await listed()).toMatchObject({
        failedSignIns: 10,
        lockedUntil: Date.parse('2026-11-27T18:15:00Z'),
      });

      // The lock runs out; the right password then signs in and forgets the failures.
      t.clock.advance(SIGN_IN_LOCK_MS);
      const after = await signIn(USER.password);
      expect([after.statusCode, after.headers.location]).toEqual([303, '/dashboard/keys']);
      expect(await listed()).toMatchObject({ failedSignIns: 0, lockedUntil: null });
    },
  );

  it.skipIf(skip)('an administrator lifts a lock; failures older than the window are forgotten', async () => {
    for (let i = 0; i < SIGN_IN_FAILURE_LIMIT; i++) await signIn(`wrong-${i}`);
    expect((await signIn(USER.password)).statusCode).toBe(429);
    expect(await t.app.services.accounts.unlockUser(USER.email)).toBe(true);
    expect((await signIn(USER.password)).statusCode).toBe(303);

    // Nine failures, then a quarter of an hour: the count starts again, no lock at the tenth.
    for (let i = 0; i < SIGN_IN_FAILURE_LIMIT - 1; i++) await signIn(`wrong-${i}`);
    t.clock.advance(15 * 60_000 + 1);
    expect((await signIn('wrong-again')).statusCode).toBe(401);
    expect((await signIn(USER.password)).statusCode).toBe(303);
    // Unknown accounts answer as a wrong password and lock nothing.
    for (let i = 0; i < SIGN_IN_FAILURE_LIMIT + 1; i++)
      expect((await signIn('whatever-it-is', 'nobody@example.test')).statusCode).toBe(401);
  });

  it.skipIf(skip)(
    'administrators see the lock on the users page and lift it there; members may not',
    async () => {
      const ADMIN = { email: 'ops@example.test', password: 'an-admin-passphrase' };
      await t.app.services.accounts.createUser({ ...ADMIN, role: 'admin' });
      const session = async (who: { email: string; password: string }) => {
        const login = await signIn(who.password, who.email);
        expect(login.statusCode).toBe(303);
        const cookie = String(login.headers['set-cookie']).split(';')[0] as string;
        const keys = await t.app.http.inject({ url: '/dashboard/keys', headers: { cookie } });
        return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(keys.body)?.[1] ?? '' };
      };
      const admin = await session(ADMIN);
      const member = await session(USER);
      for (let i = 0; i < SIGN_IN_FAILURE_LIMIT; i++) await signIn(`wrong-${i}`);

      const users = await t.app.http.inject({ url: '/dashboard/users', headers: { cookie: admin.cookie } });
      expect(users.statusCode).toBe(200);
      const row = users.body.split('<tr>').find((r) => r.includes(USER.email)) ?? '';
      expect(row).toContain('<strong>Locked</strong> until 2026-11-27 18:15 UTC');
      expect(row).toContain('action="/dashboard/users/unlock"');
      expect(users.body).toContain('href="/dashboard/users"');

      // A member sees neither the page nor the form's effect.
      const denied = await t.app.http.inject({ url: '/dashboard/users', headers: { cookie: member.cookie } });
      expect(denied.statusCode).toBe(403);
      const unlock = (who: { cookie: string; csrf: string }, email: string) =>
        t.app.http.inject({
          method: 'POST',
          url: '/dashboard/users/unlock',
          headers: { cookie: who.cookie },
          payload: { _csrf: who.csrf, email },
        });
      expect((await unlock(member, USER.email)).statusCode).toBe(403);
      expect((await unlock({ ...admin, csrf: 'forged' }, USER.email)).statusCode).toBe(303);
      expect((await signIn(USER.password)).statusCode).toBe(429);

      const lifted = await unlock(admin, USER.email);
      expect([lifted.statusCode, lifted.body.includes(`Unlocked ${USER.email}`)]).toEqual([200, true]);
      expect((await unlock(admin, 'nobody@example.test')).statusCode).toBe(404);
      expect((await signIn(USER.password)).statusCode).toBe(303);
    },
  );

  it.skipIf(skip)(
    'a user whose password predates the rules still signs in; new ones must follow them',
    async () => {
      // Stored as an older release stored it: an 8-character common password.
      const db = createAccountsStore(t.app.store.db, t.app.store.dialect);
      await db.insertUser({
        email: 'old@example.test',
        password_hash: await hashPassword('password'),
        role: 'member',
        created_at: t.clock(),
        must_change_password: 0,
      });
      const old = await signIn('password', 'old@example.test');
      expect([old.statusCode, old.headers.location]).toEqual([303, '/dashboard/keys']);
      await expect(
        t.app.services.accounts.createUser({
          email: 'new@example.test',
          role: 'member',
          password: 'password',
        }),
      ).rejects.toThrow('at least 12 characters');
    },
  );
});
