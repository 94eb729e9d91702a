/**
 * The scan store's queue on both dialects: the first lookups of a turn are queued by one
 * statement (index.ts), which queues new addresses and expired results and leaves queued,
 * running and fresh rows alone, whoever else queues the same addresses at the same time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createScanStore } from './store.ts';

describe.each(STORE_KINDS)('scan store queue (%s)', (kind) => {
  const skip = skipStore(kind);
  let handle: TestStoreHandle | undefined;
  afterEach(async () => {
    await handle?.cleanup();
    handle = undefined;
  });

  it.skipIf(skip)(
    'queues new and expired addresses in one call, and nothing queued, running or fresh',
    async () => {
      handle = await createTestStore(kind);
      const store = createScanStore(handle.store);
      expect(await store.queue([], 1000)).toEqual([]);
      expect(
        (await store.queue(['192.0.2.1', '192.0.2.2', '192.0.2.3', '2001:db8::1'], 1000)).sort(),
      ).toEqual(['192.0.2.1', '192.0.2.2', '192.0.2.3', '2001:db8::1']);
      // All four claimed; then .1 still running, .2 done until 5000, .3 until 1500, the IPv6 one until 9000.
      const claimed = new Set<string>();
      for (let i = 0; i < 4; i++) claimed.add((await store.claim('w', 1100, 60_000))?.ip ?? 'none');
      expect(claimed.size).toBe(4);
      expect(claimed.has('none')).toBe(false);
      const end = { status: 'done' as const, reason: null, report: '{}', scanned_at: 1200 };
      expect(await store.finish('192.0.2.2', 'w', { ...end, expires_at: 5000 })).toBe(true);
      expect(await store.finish('192.0.2.3', 'w', { ...end, expires_at: 1500 })).toBe(true);
      expect(await store.finish('2001:db8::1', 'w', { ...end, expires_at: 9000 })).toBe(true);

      const again = await store.queue(
        ['192.0.2.1', '192.0.2.2', '192.0.2.3', '2001:db8::1', '192.0.2.9'],
        2000,
      );
      expect(again.sort()).toEqual(['192.0.2.3', '192.0.2.9']);
      expect((await store.read('192.0.2.3'))?.status).toBe('queued');
      expect((await store.read('192.0.2.1'))?.status).toBe('running');
      expect((await store.read('192.0.2.2'))?.status).toBe('done');
    },
  );

  it.skipIf(skip)('queues an address once when two instances queue it at the same time', async () => {
    handle = await createTestStore(kind);
    const a = createScanStore(handle.store);
    const b = createScanStore(handle.reopen());
    const ips = Array.from({ length: 600 }, (_, i) => `198.51.${i >> 8}.${i & 255}`);
    const [x, y] = await Promise.all([a.queue(ips, 1000), b.queue(ips.toReversed(), 1000)]);
    expect(x.length + y.length).toBe(600);
    expect(new Set([...x, ...y]).size).toBe(600);
  });
});
