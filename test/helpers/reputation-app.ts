/**
 * The real app for reputation route tests, like createTestApp but with the dataset facts
 * (datacenter, geo changes) given as data: the intel module is not wired yet, and these are
 * the only reputation inputs that do not come from the store.
 */
import crypto from 'node:crypto';
import type { Feature, Permission } from '../../src/accounts/index.ts';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createManualClock, type ManualClock } from '../../src/core/clock.ts';
import type { IntelFacts } from '../../src/reputation/index.ts';
import { createTestStore, type StoreKind, type TestStoreHandle } from './stores.ts';

export interface IntelRow {
  datacenter: boolean | null;
  geoChangeCount: number | null;
}

export interface ReputationTestApp {
  app: App;
  clock: ManualClock;
  handle: TestStoreHandle;
  /** Dataset facts by normalized address; absent = unknown. */
  intel: Map<string, IntelRow>;
  key(permissions: Permission[], features?: Feature[], ownerId?: number): Promise<string>;
  user(): Promise<number>;
  close(): Promise<void>;
}

export async function createReputationTestApp(
  kind: StoreKind,
  clockStart = '2026-06-15T12:00:00Z',
): Promise<ReputationTestApp> {
  const handle = await createTestStore(kind);
  const clock = createManualClock(clockStart);
  const intel = new Map<string, IntelRow>();
  const intelFacts: IntelFacts = {
    datacenter: (ip) => intel.get(ip)?.datacenter ?? null,
    geoChangeCount90d: (ip) => intel.get(ip)?.geoChangeCount ?? null,
  };
  const config = loadConfig(
    {
      dataDir: handle.dataDir,
      databaseUrl: handle.databaseUrl,
      redisUrl: '',
      listen: '127.0.0.1:0',
      dnsblListen: '',
    },
    {},
  );
  const app = await createApp(config, {
    clock,
    intelFacts,
    limitPrefix: `t${crypto.randomBytes(4).toString('hex')}`,
    ...(handle.pgSchema ? { pgSchema: handle.pgSchema } : {}),
  });
  const { user } = await app.services.accounts.createUser({
    email: `admin-${crypto.randomBytes(3).toString('hex')}@example.test`,
    role: 'admin',
  });
  return {
    app,
    clock,
    handle,
    intel,
    async key(permissions, features = [], ownerId = user.id) {
      const created = await app.services.accounts.createKey({
        ownerId,
        name: 'test',
        tier: 'enterprise',
        permissions,
        features,
      });
      return created.key;
    },
    async user() {
      const created = await app.services.accounts.createUser({
        email: `u-${crypto.randomBytes(4).toString('hex')}@example.test`,
        role: 'member',
      });
      return created.user.id;
    },
    async close() {
      await app.close().catch(() => undefined);
      await handle.cleanup();
    },
  };
}

let clientCounter = 0;
/** A fresh client address per anonymous request, so the 60/min bucket never interferes. */
export function nextClientIp(): string {
  clientCounter++;
  return `10.${(clientCounter >> 16) & 255}.${(clientCounter >> 8) & 255}.${clientCounter & 255}`;
}
