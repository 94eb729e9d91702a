/**
 * Stage 2 of createApp: the store, migrated, and Redis when NETREP_REDIS_URL is set. Nothing of
 * the domains exists yet; what fails here closes what this stage opened.
 */
import { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { migrate, openStore, type Store } from '../store/index.ts';

export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 3000,
    // A command that gets no answer (a cut that drops packets) fails, and limits count locally.
    commandTimeout: 1000,
    lazyConnect: true,
  });
  redis.on('error', () => undefined);
  await redis.connect();
  return redis;
}

export interface StoreStage {
  /** Open and migrated to the newest schema. */
  store: Store;
  redis: Redis | null;
}

export async function openStoreStage(config: Config, pgSchema?: string): Promise<StoreStage> {
  const store = openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ...(pgSchema ? { pgSchema } : {}),
  });
  try {
    await migrate(store.db, store.dialect);
    const redis = config.redisUrl ? await connectRedis(config.redisUrl) : null;
    return { store, redis };
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
}
