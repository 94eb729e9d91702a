/**
 * The real app on a real store for route tests: SQLite in a temp dir or a fresh PostgreSQL
 * schema, optional Redis, a manual clock. `key()` makes API keys the way `netrep keys create` does.
 */
import crypto from 'node:crypto';
import { type Feature, PERMISSIONS, type Permission, type TierName } from '../../src/accounts/index.ts';
import { type App, createApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { createManualClock, type ManualClock } from '../../src/core/clock.ts';
import type { HttpServices, RouteModule } from '../../src/http/context.ts';
import type { IntelFacts } from '../../src/reputation/index.ts';
import { TEST_REDIS_URL } from './backends.ts';
import { createTestStore, type StoreKind, type TestStoreHandle } from './stores.ts';

export interface TestApp {
  app: App;
  clock: ManualClock;
  handle: TestStoreHandle;
  adminId: number;
  key(options?: {
    tier?: TierName;
    permissions?: Permission[];
    features?: Feature[];
    ownerId?: number;
  }): Promise<string>;
  user(email?: string): Promise<number>;
  close(): Promise<void>;
}

/** Every permission but `admin`: a key that may call each route by its own permission. */
export const ALL_PERMISSIONS: Permission[] = PERMISSIONS.filter((p) => p !== 'admin');

export async function createTestApp(
  kind: StoreKind,
  options: {
    config?: Partial<Config>;
    redis?: boolean;
    clockStart?: string;
    routes?: RouteModule[];
    limitPrefix?: string;
    handle?: TestStoreHandle;
    /** Header hop enrichment (services.enrichIp). */
    enrichIp?: HttpServices['enrichIp'];
    /** Dataset facts for reputation, given as data (reputation-app.ts). */
    intelFacts?: IntelFacts;
    /** How long an authenticated key is kept (createApp's default when absent). */
    authCacheMs?: number;
    /** false: the socket front reads 'data' events (createApp's frontReadIntoBuffer). */
    frontReadIntoBuffer?: boolean;
  } = {},
): Promise<TestApp> {
  const handle = options.handle ?? (await createTestStore(kind));
  const clock = createManualClock(options.clockStart ?? '2026-06-15T12:00:00Z');
  const config = loadConfig(
    {
      dataDir: handle.dataDir,
      databaseUrl: handle.databaseUrl,
      redisUrl: options.redis ? TEST_REDIS_URL : '',
      listen: '127.0.0.1:0',
      dnsblListen: '',
      // Never the system resolvers: a closed loopback port fails every query at once.
      // DNS tests point this at test/helpers/dns-zone-server.ts.
      dnsServers: ['127.0.0.1:9'],
      // No scheduled dataset update (it would download from the real upstreams); tests opt in.
      datasetUpdate: 'off',
      ...options.config,
    },
    {},
  );
  const app = await createApp(config, {
    clock,
    ...(handle.pgSchema ? { pgSchema: handle.pgSchema } : {}),
    limitPrefix: options.limitPrefix ?? `t${crypto.randomBytes(4).toString('hex')}`,
    ...(options.routes ? { routes: options.routes } : {}),
    ...(options.enrichIp ? { enrichIp: options.enrichIp } : {}),
    ...(options.intelFacts ? { intelFacts: options.intelFacts } : {}),
    ...(options.authCacheMs ? { authCacheMs: options.authCacheMs } : {}),
    ...(options.frontReadIntoBuffer === false ? { frontReadIntoBuffer: false } : {}),
  });
  const { user } = await app.services.accounts.createUser({
    email: `admin-${crypto.randomBytes(3).toString('hex')}@example.test`,
    role: 'admin',
  });
  return {
    app,
    clock,
    handle,
    adminId: user.id,
    async key(o = {}) {
      const created = await app.services.accounts.createKey({
        ownerId: o.ownerId ?? user.id,
        name: 'test',
        tier: o.tier ?? 'enterprise',
        permissions: o.permissions ?? ALL_PERMISSIONS,
        features: o.features ?? [],
      });
      return created.key;
    },
    async user(email) {
      const created = await app.services.accounts.createUser({
        email: email ?? `u-${crypto.randomBytes(4).toString('hex')}@example.test`,
        role: 'member',
      });
      return created.user.id;
    },
    async close() {
      await app.close();
      if (!options.handle) await handle.cleanup();
    },
  };
}
