/**
 * `netrep worker` runs the background loops without serving: an API instance with
 * NETREP_WORKERS=false leaves an expired listing unrecorded, the worker process records it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createBlocklist } from '../../src/blocklist/index.ts';
import { systemClock } from '../../src/core/clock.ts';
import { type NetrepProcess, startNetrep } from '../helpers/process.ts';
import { createTestStore, type TestStoreHandle } from '../helpers/stores.ts';

describe('netrep worker', () => {
  let worker: NetrepProcess | undefined;
  let handle: TestStoreHandle | undefined;
  afterAll(async () => {
    await worker?.stop();
    await handle?.cleanup();
  });

  it('records expiries for the instances that do not run workers', async () => {
    handle = await createTestStore('sqlite');
    const blocklist = createBlocklist({ store: handle.store, clock: systemClock });
    await blocklist.list({
      ip: '198.51.100.77',
      type: 'spam',
      reason: 'short test listing',
      expiresAt: Date.now() + 1500,
    });
    worker = await startNetrep(
      { NETREP_DATA_DIR: handle.dataDir, NETREP_LOG_LEVEL: 'warn' },
      180_000,
      'worker',
    );
    expect(worker.output()).toContain('netrep worker running');
    let events: { action: string; reason: string }[] = [];
    for (let i = 0; i < 100 && !events.some((e) => e.action === 'delisted'); i++) {
      await new Promise((r) => setTimeout(r, 200));
      events = await handle.store.db
        .selectFrom('blocklist_events')
        .select(['action', 'reason'])
        .where('ip', '=', '198.51.100.77')
        .execute();
    }
    expect(events.filter((e) => e.action === 'delisted')).toEqual([
      { action: 'delisted', reason: 'expired' },
    ]);
  }, 240_000);
});
