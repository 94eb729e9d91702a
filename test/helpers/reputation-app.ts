/**
 * The real app for reputation route tests: createTestApp with the dataset facts
 * (datacenter, geo changes) given as data: the intel module is not wired yet, and these are
 * the only reputation inputs that do not come from the store.
 */
import type { Feature, Permission } from '../../src/accounts/index.ts';
import type { App } from '../../src/app.ts';
import type { ManualClock } from '../../src/core/clock.ts';
import { createTestApp } from './app.ts';
import type { StoreKind, TestStoreHandle } from './stores.ts';

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
  /** How long an authenticated key is kept (createApp's default when absent: 1 s on PostgreSQL). */
  authCacheMs?: number,
): Promise<ReputationTestApp> {
  const intel = new Map<string, IntelRow>();
  const t = await createTestApp(kind, {
    clockStart,
    ...(authCacheMs === undefined ? {} : { authCacheMs }),
    intelFacts: {
      datacenter: (ip) => intel.get(ip)?.datacenter ?? null,
      geoChangeCount90d: (ip) => intel.get(ip)?.geoChangeCount ?? null,
    },
  });
  return {
    app: t.app,
    clock: t.clock,
    handle: t.handle,
    intel,
    key: (permissions, features = [], ownerId = t.adminId) => t.key({ permissions, features, ownerId }),
    user: () => t.user(),
    async close() {
      // Some tests stop the store first: closing the app may then fail, the cleanup must not.
      await t.app.close().catch(() => undefined);
      await t.handle.cleanup();
    },
  };
}

let clientCounter = 0;
/** A fresh client address per anonymous request, so the 60/min bucket never interferes. */
export function nextClientIp(): string {
  clientCounter++;
  return `10.${(clientCounter >> 16) & 255}.${(clientCounter >> 8) & 255}.${clientCounter & 255}`;
}
