import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createManualClock, DAY_MS } from '../core/clock.ts';
import { isAppError } from '../core/errors.ts';
import { createBlocklist } from './index.ts';

const HOUR = 3_600_000;

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (isAppError(err)) return err.code;
    throw err;
  }
  return 'no error';
}

describe.each(STORE_KINDS)('blocklist on %s', (kind) => {
  let handle: TestStoreHandle | undefined;
  afterEach(async () => {
    await handle?.cleanup();
    handle = undefined;
  });

  async function setup() {
    handle = await createTestStore(kind);
    const clock = createManualClock('2026-03-01T00:00:00Z');
    return { clock, bl: createBlocklist({ store: handle.store, clock }) };
  }

  it.skipIf(skipStore(kind))('lists, re-lists and delists with exactly one event each', async () => {
    const { clock, bl } = await setup();
    const t0 = clock();
    const first = await bl.list({ ip: ' 192.0.2.10 ', type: 'spam', reason: 'trap hits', actor: 'test' });
    expect(first).toMatchObject({
      ip: '192.0.2.10',
      family: 4,
      returnCode: '127.0.0.2',
      listedAt: t0,
      expiresAt: null,
    });
    clock.advance(HOUR);
    const again = await bl.list({ ip: '192.0.2.10', type: 'malware', reason: 'c2', returnCode: '127.0.0.9' });
    // Re-listing an active listing keeps its start and updates the rest.
    expect(again).toMatchObject({
      type: 'malware',
      returnCode: '127.0.0.9',
      listedAt: t0,
      updatedAt: t0 + HOUR,
    });
    expect(await bl.check('192.0.2.10')).toMatchObject({ type: 'malware', reason: 'c2' });
    clock.advance(HOUR);
    expect(await bl.delist('192.0.2.10', { reason: 'cleaned up' })).toMatchObject({ ip: '192.0.2.10' });
    expect(await bl.check('192.0.2.10')).toBeNull();
    // Delisting what is not listed records nothing.
    expect(await bl.delist('192.0.2.10')).toBeNull();

    const events = await bl.recent({ limit: 100, offset: 0 });
    expect(events.map((e) => [e.action, e.type, e.reason, e.performedAt])).toEqual([
      ['delisted', 'malware', 'cleaned up', t0 + 2 * HOUR],
      ['listed', 'malware', 'c2', t0 + HOUR],
      ['listed', 'spam', 'trap hits', t0],
    ]);
    expect(events[0]).toMatchObject({ delistedAt: t0 + 2 * HOUR, listedAt: t0, returnCode: '127.0.0.9' });
    expect(await bl.stats()).toEqual({
      totalActive: 0,
      byType: { spam: 0, malware: 0, phishing: 0 },
      newListings24h: 2,
      delistings24h: 1,
    });
    clock.advance(DAY_MS);
    expect(await bl.stats()).toMatchObject({ newListings24h: 0, delistings24h: 0 });
    expect(await bl.listedEventsSince('192.0.2.10', t0)).toBe(2);
    expect(await bl.listedEventsSince('192.0.2.10', t0 + 1)).toBe(1);
  });

  it.skipIf(skipStore(kind))('records an expiry once, whether or not anyone reads the address', async () => {
    const { clock, bl } = await setup();
    const t0 = clock();
    await bl.list({ ip: '2001:DB8::1', type: 'phishing', reason: 'kit', expiresAt: t0 + HOUR });
    await bl.list({ ip: '198.51.100.7', type: 'spam', reason: 'bulk', expiresAt: t0 + 2 * HOUR });
    await bl.list({ ip: '198.51.100.8', type: 'spam', reason: 'bulk' });
    expect((await bl.check('2001:db8:0::1'))?.ip).toBe('2001:db8::1');
    expect(await bl.activeCountInSubnet24('198.51.100.200')).toBe(2);

    clock.advance(HOUR);
    // Expired listings are gone from checks at once, before any expiry run.
    expect(await bl.check('2001:db8::1')).toBeNull();
    expect(await bl.expireDue()).toBe(1);
    expect(await bl.expireDue()).toBe(0);
    clock.advance(2 * HOUR);
    expect(await bl.activeCountInSubnet24('198.51.100.1')).toBe(1);
    // stats() records the second expiry itself.
    expect(await bl.stats()).toEqual({
      totalActive: 1,
      byType: { spam: 1, malware: 0, phishing: 0 },
      newListings24h: 3,
      delistings24h: 2,
    });
    expect(await bl.expireDue()).toBe(0);
    const delisted = (await bl.recent({ limit: 10, offset: 0 })).filter((e) => e.action === 'delisted');
    expect(delisted.map((e) => [e.ip, e.reason, e.delistedAt])).toEqual([
      ['198.51.100.7', 'expired', t0 + 2 * HOUR],
      ['2001:db8::1', 'expired', t0 + HOUR],
    ]);
    const all = [];
    for await (const l of bl.activeListings()) all.push(l.ip);
    expect(all).toEqual(['198.51.100.8']);
  });

  it.skipIf(skipStore(kind))(
    're-listing an expired, unprocessed listing records the expiry first',
    async () => {
      const { clock, bl } = await setup();
      const t0 = clock();
      await bl.list({ ip: '203.0.113.5', type: 'spam', reason: 'one', expiresAt: t0 + HOUR });
      clock.advance(2 * HOUR);
      const again = await bl.list({ ip: '203.0.113.5', type: 'spam', reason: 'two' });
      expect(again.listedAt).toBe(t0 + 2 * HOUR);
      expect((await bl.recent({ limit: 10, offset: 0 })).map((e) => [e.action, e.reason])).toEqual([
        ['listed', 'two'],
        ['delisted', 'expired'],
        ['listed', 'one'],
      ]);
      expect(await bl.expireDue()).toBe(0);
    },
  );

  it.skipIf(skipStore(kind))('rejects bad input with the right codes', async () => {
    const { clock, bl } = await setup();
    expect(await codeOf(bl.list({ ip: '300.1.1.1', type: 'spam', reason: 'x' }))).toBe('INVALID_IP');
    expect(
      await codeOf(bl.list({ ip: '192.0.2.1', type: 'spam', reason: 'x', returnCode: '127.0.0.1' })),
    ).toBe('INVALID_BODY');
    expect(
      await codeOf(bl.list({ ip: '192.0.2.1', type: 'spam', reason: 'x', returnCode: '10.0.0.2' })),
    ).toBe('INVALID_BODY');
    expect(
      await codeOf(bl.list({ ip: '192.0.2.1', type: 'spam', reason: 'x', returnCode: '127.000.0.2' })),
    ).toBe('INVALID_BODY');
    expect(await codeOf(bl.list({ ip: '192.0.2.1', type: 'spam', reason: 'x', expiresAt: clock() }))).toBe(
      'INVALID_BODY',
    );
    expect(await codeOf(bl.list({ ip: '192.0.2.1', type: 'spam', reason: 'a\u0000b' }))).toBe('INVALID_BODY');
    expect(await codeOf(bl.list({ ip: '192.0.2.1', type: 'spam', reason: '   ' }))).toBe('INVALID_BODY');
    expect(await codeOf(bl.check('fe80::1%eth0'))).toBe('INVALID_IP');
    expect(await bl.recent({ limit: 10, offset: 0 })).toEqual([]);
  });

  it.skipIf(skipStore(kind))('reports changes after a cursor with the current state', async () => {
    const { bl } = await setup();
    const start = await bl.lastEventId();
    await bl.list({ ip: '192.0.2.1', type: 'spam', reason: 'a' });
    await bl.list({ ip: '192.0.2.2', type: 'spam', reason: 'b' });
    await bl.delist('192.0.2.1');
    const changes = await bl.changesSince(start);
    expect(changes.map((c) => [c.ip, c.listing?.reason ?? null])).toEqual([
      ['192.0.2.1', null],
      ['192.0.2.2', 'b'],
      ['192.0.2.1', null],
    ]);
    expect(await bl.changesSince(changes[2]?.eventId ?? 0)).toEqual([]);
  });

  it.skipIf(kind === 'sqlite' || skipStore(kind))(
    'two instances expiring together record one event',
    async () => {
      const { clock, bl } = await setup();
      const other = createBlocklist({ store: (handle as TestStoreHandle).reopen(), clock });
      const t0 = clock();
      for (let i = 0; i < 40; i++)
        await bl.list({ ip: `192.0.2.${i}`, type: 'spam', reason: 'r', expiresAt: t0 + HOUR });
      clock.advance(HOUR);
      const counts = await Promise.all([
        bl.expireDue(),
        other.expireDue(),
        bl.expireDue(),
        other.expireDue(),
      ]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(40);
      const stats = await other.stats();
      expect(stats).toMatchObject({ totalActive: 0, newListings24h: 40, delistings24h: 40 });
    },
  );
});
