/**
 * A real app serving a small dataset built from the dataset module's fixture npm packages
 * (src/dataset/fixtures), for the IP and ASN route tests.
 */
import path from 'node:path';
import { systemClock } from '../../src/core/clock.ts';
import { buildDataset } from '../../src/dataset/index.ts';
import { createTestApp, type TestApp } from './app.ts';
import { REPO } from './process.ts';
import { createTestStore, type StoreKind, type TestStoreHandle } from './stores.ts';

export function datasetFixture(name: 'npm-a' | 'npm-b' | 'npm-c'): string {
  return path.join(REPO, 'src/dataset/fixtures', name);
}

export interface IntelTestApp extends TestApp {
  /** Builds the next dataset version from another fixture into the app's data dir. */
  buildNext(fixture: 'npm-a' | 'npm-b' | 'npm-c'): Promise<number>;
}

export async function createIntelTestApp(
  kind: StoreKind,
  options: Parameters<typeof createTestApp>[1] = {},
): Promise<IntelTestApp> {
  const handle: TestStoreHandle = await createTestStore(kind);
  await buildDataset({ dataDir: handle.dataDir, clock: systemClock, npmDir: datasetFixture('npm-a') });
  const t = await createTestApp(kind, { ...options, handle });
  return {
    ...t,
    async buildNext(fixture) {
      const r = await buildDataset({
        dataDir: handle.dataDir,
        clock: systemClock,
        npmDir: datasetFixture(fixture),
      });
      return r.version;
    },
    async close() {
      await t.close();
      await handle.cleanup();
    },
  };
}
