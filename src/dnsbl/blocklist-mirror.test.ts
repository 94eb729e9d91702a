import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createBlocklist } from '../blocklist/index.ts';
import { createBlocklistStore } from '../blocklist/store.ts';
import { createManualClock } from '../core/clock.ts';
import { type BlocklistMirror, startBlocklistMirror } from './blocklist-mirror.ts';

const HOUR = 3_600_000;

describe.each(STORE_KINDS)('blocklist mirror on %s', (kind) => {
  let handle: TestStoreHandle | undefined;
  let mirror: BlocklistMirror | undefined;
  afterEach(async () => {
    mirror?.close();
    await handle?.cleanup();
    handle = mirror = undefined;
  });

  async function setup() {
    handle = await createTestStore(kind);
    const clock = createManualClock('2026-05-01T00:00:00Z');
    const local = createBlocklist({ store: handle.store, clock });
    // Another instance: its own store connection, its changes reach us only through the log.
    const remote = createBlocklist({ store: handle.reopen(), clock });
    return { clock, local, remote };
  }

  it.skipIf(skipStore(kind))('loads, follows local changes at once and remote ones on poll', async () => {
    const { clock, local, remote } = await setup();
    await local.list({ ip: '192.0.2.1', type: 'spam', reason: 'before start' });
    await local.list({ ip: '192.0.2.2', type: 'phishing', reason: 'expiring', expiresAt: clock() + HOUR });
    mirror = await startBlocklistMirror({ blocklist: local, clock, pollMs: 60_000 });
    expect(mirror.index.size).toBe(2);
    expect(mirror.index.get('192.0.2.1')).toMatchObject({ returnCode: '127.0.0.2', reason: 'before start' });

    await local.list({ ip: '2001:db8::1', type: 'malware', reason: 'local' });
    expect(mirror.listingFor('2001:DB8:0::1')).toEqual({ type: 'malware' });
    await remote.list({ ip: '198.51.100.9', type: 'spam', reason: 'remote' });
    expect(mirror.listingFor('198.51.100.9')).toBeNull();
    await mirror.poll();
    expect(mirror.listingFor('198.51.100.9')).toEqual({ type: 'spam' });
    await remote.delist('192.0.2.1');
    await remote.list({
      ip: '2001:db8::1',
      type: 'spam',
      reason: 'changed remotely',
      returnCode: '127.0.0.7',
    });
    await mirror.poll();
    expect(mirror.index.get('192.0.2.1')).toBeUndefined();
    expect(mirror.index.get('2001:db8::1')).toMatchObject({ returnCode: '127.0.0.7', type: 'spam' });

    // Expiry is applied from memory: listingFor at once, the index on the next poll or tick.
    clock.advance(HOUR);
    expect(mirror.listingFor('192.0.2.2')).toBeNull();
    await mirror.poll();
    expect(mirror.index.get('192.0.2.2')).toBeUndefined();
    expect(mirror.listingFor('not an ip')).toBeNull();
    expect(mirror.index.size).toBe(2);
  });

  it.skipIf(kind === 'sqlite' || skipStore(kind))(
    'an event committed after a later one is still applied (PostgreSQL id gaps)',
    async () => {
      const { clock, local, remote } = await setup();
      mirror = await startBlocklistMirror({ blocklist: local, clock, pollMs: 60_000 });
      const slow = createBlocklistStore((handle as TestStoreHandle).reopen().db, 'postgres');
      let release = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      let inserted = () => {};
      const insertedP = new Promise<void>((r) => {
        inserted = r;
      });
      // A transaction takes an event id, then waits before committing.
      const pending = slow.transaction(async (w) => {
        const now = clock();
        await w.putListing({
          ip: '203.0.113.1',
          family: 4,
          subnet24: '203.0.113.0/24',
          type: 'spam',
          reason: 'slow commit',
          return_code: '127.0.0.2',
          listed_at: now,
          expires_at: null,
          updated_at: now,
        });
        await w.addEvent({
          ip: '203.0.113.1',
          subnet24: '203.0.113.0/24',
          action: 'listed',
          type: 'spam',
          reason: 'slow commit',
          return_code: '127.0.0.2',
          listed_at: now,
          expires_at: null,
          delisted_at: null,
          performed_at: now,
          actor: 'test',
        });
        inserted();
        await gate;
      });
      await insertedP;
      // Another /24: a write in the same /24 waits for the pending one (both raise the /24's
      // change stamp, store/stamps.ts), and this test holds that one open until after it.
      await remote.list({ ip: '198.51.100.2', type: 'spam', reason: 'fast commit' });
      await mirror.poll();
      expect(mirror.listingFor('198.51.100.2')).toEqual({ type: 'spam' });
      expect(mirror.listingFor('203.0.113.1')).toBeNull();
      release();
      await pending;
      await mirror.poll();
      expect(mirror.listingFor('203.0.113.1')).toEqual({ type: 'spam' });
    },
  );
});
