import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createManualClock } from '../core/clock.ts';
import { createAccounts } from './index.ts';
import { hashApiKey, KEY_PATTERN, randomBase62, verifyPassword } from './secrets.ts';

describe('secrets', () => {
  it('keys are nrp_ + 40 base62 and unique', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const k = `nrp_${randomBase62(40)}`;
      expect(k).toMatch(KEY_PATTERN);
      seen.add(k);
    }
    expect(seen.size).toBe(200);
  });
});

describe.each(STORE_KINDS)('accounts on %s', (kind) => {
  let handle: TestStoreHandle | undefined;
  afterEach(async () => {
    await handle?.cleanup();
    handle = undefined;
  });

  it.skipIf(skipStore(kind))('key lifecycle: create, authenticate, use, revoke', async () => {
    handle = await createTestStore(kind);
    const clock = createManualClock('2026-03-01T10:00:00Z');
    const accounts = createAccounts({ store: handle.store, clock, usageFlushMs: 60_000 });
    const { user, password } = await accounts.createUser({ email: 'Owner@Example.test', role: 'member' });
    expect(user.email).toBe('owner@example.test');
    expect(await accounts.verifyLogin('owner@example.test', password)).not.toBeNull();
    expect(await accounts.verifyLogin('owner@example.test', 'wrong-password')).toBeNull();

    const { key, info } = await accounts.createKey({
      ownerId: user.id,
      name: 'mail',
      tier: 'starter',
      permissions: ['ip:read', 'email:read'],
    });
    expect(key).toMatch(KEY_PATTERN);
    expect(info.prefix).toBe(key.slice(0, 8));
    // Only the hash is stored.
    const row = await handle.store.db.selectFrom('api_keys').selectAll().executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(hashApiKey(key));
    expect(JSON.stringify(row)).not.toContain(key);

    const p = await accounts.authenticate(key);
    expect(p?.tier.name).toBe('starter');
    expect([...(p?.permissions ?? [])].sort()).toEqual(['email:read', 'ip:read']);
    expect(await accounts.authenticate(`${key.slice(0, -1)}${key.endsWith('X') ? 'Y' : 'X'}`)).toBeNull();
    expect(await accounts.authenticate('nrp_short')).toBeNull();
    expect(await accounts.authenticate('')).toBeNull();

    accounts.recordUse(info.id);
    accounts.recordUse(info.id);
    clock.advance(86_400_000);
    accounts.recordUse(info.id);
    const usage = await accounts.usage(info.id, 3);
    expect(usage.map((u) => u.requests)).toEqual([0, 2, 1]);
    const listed = await accounts.listKeys({ ownerId: user.id });
    expect(listed[0]?.last_used_at).toBe('2026-03-02T10:00:00.000Z');

    expect(await accounts.revokeKey(info.id)).toBe(true);
    expect(await accounts.authenticate(key)).toBeNull();
    expect(await accounts.revokeKey(info.id)).toBe(false);
    expect(await accounts.listKeys({ ownerId: user.id })).toHaveLength(0);
    expect(await accounts.listKeys({ ownerId: user.id, includeRevoked: true })).toHaveLength(1);
    await accounts.close();
  });

  it.skipIf(skipStore(kind))('revocation is immediate even with the auth cache on', async () => {
    handle = await createTestStore(kind);
    const accounts = createAccounts({ store: handle.store, clock: createManualClock(), authCacheMs: 60_000 });
    const { user } = await accounts.createUser({ email: 'c@example.test', role: 'admin' });
    const { key, info } = await accounts.createKey({
      ownerId: user.id,
      name: 'k',
      tier: 'pro',
      permissions: ['admin'],
    });
    expect(await accounts.authenticate(key)).not.toBeNull();
    await accounts.revokeKey(info.id);
    expect(await accounts.authenticate(key)).toBeNull();
    await accounts.close();
  });

  it.skipIf(kind !== 'sqlite')(
    'a key revoked by another process fails at once despite the cache',
    async () => {
      handle = await createTestStore(kind);
      const { sqliteDataVersion } = await import('../store/index.ts');
      const server = createAccounts({
        store: handle.store,
        clock: createManualClock(),
        authCacheMs: 60_000,
        changeToken: sqliteDataVersion(handle.store.sqlite!),
      });
      const { user } = await server.createUser({ email: 'x@example.test', role: 'admin' });
      const { key, info } = await server.createKey({
        ownerId: user.id,
        name: 'k',
        tier: 'pro',
        permissions: ['admin'],
      });
      expect(await server.authenticate(key)).not.toBeNull();
      // The CLI: another connection to the same file.
      const cli = createAccounts({ store: handle.reopen(), clock: createManualClock() });
      expect(await cli.revokeKey(info.id)).toBe(true);
      expect(await server.authenticate(key)).toBeNull();
      await cli.close();
      await server.close();
    },
  );

  it.skipIf(skipStore(kind))('features and validation', async () => {
    handle = await createTestStore(kind);
    const accounts = createAccounts({ store: handle.store, clock: createManualClock() });
    const { user } = await accounts.createUser({ email: 'f@example.test', role: 'member' });
    const { key, info } = await accounts.createKey({
      ownerId: user.id,
      name: 'k',
      tier: 'free',
      permissions: [],
    });
    expect((await accounts.authenticate(key))?.features.has('telemetry_ingest')).toBe(false);
    await accounts.setFeatures(info.id, ['telemetry_ingest']);
    expect((await accounts.authenticate(key))?.features.has('telemetry_ingest')).toBe(true);
    await expect(
      accounts.createKey({ ownerId: user.id, name: '', tier: 'free', permissions: [] }),
    ).rejects.toThrow(/name/);
    await expect(accounts.createUser({ email: 'f@example.test', role: 'member' })).rejects.toThrow(/exists/);
    await expect(accounts.createUser({ email: 'not-an-email', role: 'member' })).rejects.toThrow(/email/);
    expect(await accounts.ensureAdmin('root@example.test')).not.toBeNull();
    expect(await accounts.ensureAdmin('root2@example.test')).toBeNull();
    await accounts.close();
  });

  it.skipIf(skipStore(kind))(
    'a one-time password must be changed; changing checks the current one and ends other sessions',
    async () => {
      handle = await createTestStore(kind);
      const accounts = createAccounts({ store: handle.store, clock: createManualClock() });
      // A weak NETREP_ADMIN_PASSWORD is refused with the reason, and no administrator is made.
      await expect(accounts.ensureAdmin('root@example.test', 'password')).rejects.toThrow(
        "the first administrator's password (NETREP_ADMIN_PASSWORD) is refused: password must have at least 12",
      );
      const first = await accounts.ensureAdmin('root@example.test');
      const admin = await accounts.verifyLogin('root@example.test', first!.password);
      expect(admin?.mustChangePassword).toBe(true);
      // A password the operator chose (NETREP_ADMIN_PASSWORD, users create --password) is kept.
      const { user: chosen } = await accounts.createUser({
        email: 'chosen@example.test',
        role: 'member',
        password: 'chosen-password-1',
      });
      expect(chosen.mustChangePassword).toBe(false);
      expect((await accounts.listUsers()).map((u) => u.mustChangePassword)).toEqual([true, false]);

      const kept = await accounts.createSession(admin!.id);
      const other = await accounts.createSession(admin!.id);
      await expect(accounts.changePassword(admin!.id, 'wrong-password', 'new-password-1')).rejects.toThrow(
        /current password is wrong/,
      );
      await expect(accounts.changePassword(admin!.id, first!.password, 'short')).rejects.toThrow(
        /at least 12/,
      );
      await expect(accounts.changePassword(admin!.id, first!.password, first!.password)).rejects.toThrow(
        /must differ/,
      );
      expect((await accounts.userById(admin!.id))?.mustChangePassword).toBe(true);
      await accounts.changePassword(admin!.id, first!.password, 'new-password-1', kept.token);
      // The one-time password works no more; the new one does, without a further change.
      expect(await accounts.verifyLogin('root@example.test', first!.password)).toBeNull();
      expect((await accounts.verifyLogin('root@example.test', 'new-password-1'))?.mustChangePassword).toBe(
        false,
      );
      expect(await accounts.session(kept.token)).not.toBeNull();
      expect(await accounts.session(other.token)).toBeNull();
      await accounts.close();
    },
  );
});

describe('passwords', () => {
  it('rejects malformed stored hashes', async () => {
    expect(await verifyPassword('x', 'plain')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$$')).toBe(false);
  });
});
