/**
 * Two limiters (two instances) on one real Redis behind a TCP proxy on 127.0.0.1: a cut leaves
 * each with its share of what a counter had left, and what they allowed is added back when the
 * proxy forwards again (outage.ts).
 */
import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeBackends, TEST_REDIS_URL } from '../../test/helpers/backends.ts';
import { createTestStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { startTcpProxy, type TcpProxy } from '../../test/helpers/tcp-proxy.ts';
import { connectRedis } from '../app.ts';
import { AppError } from '../core/errors.ts';
import { createLimits, type Limits } from './index.ts';

const backends = await probeBackends();
if (!backends.redis) process.stdout.write('[skip] limits outage: needs Redis\n');

const waitFor = async (what: string, ok: () => boolean, ms = 15_000) => {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

/** How many of `n` calls were allowed (the others must be 429). */
async function allowed(n: number, call: () => Promise<unknown>): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) {
    try {
      await call();
      ok++;
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('RATE_LIMIT_EXCEEDED');
    }
  }
  return ok;
}

describe.skipIf(!backends.redis)('limits through a Redis outage (two instances)', () => {
  let proxy: TcpProxy;
  let handle: TestStoreHandle;
  const clients: Redis[] = [];
  let a: Limits;
  let b: Limits;
  let direct: Redis;
  const prefix = `outage-${crypto.randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    const target = new URL(TEST_REDIS_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    handle = await createTestStore('sqlite');
    const via = `redis://127.0.0.1:${proxy.port}`;
    const make = async () => {
      const redis = await connectRedis(via);
      clients.push(redis);
      return createLimits({
        store: handle.store,
        redis,
        clock: Date.now,
        prefix,
        buckets: { public: { points: 20 } },
      });
    };
    a = await make();
    b = await make();
    direct = await connectRedis(TEST_REDIS_URL);
    // Each heartbeat counts the instances heard from; the second round hears both.
    a.outage();
    b.outage();
    await new Promise((r) => setTimeout(r, 2_100));
    a.outage();
    b.outage();
    await waitFor('two instances counted', () => a.outage()?.instances === 2 && b.outage()?.instances === 2);
  });

  afterAll(async () => {
    for (const c of clients) c.disconnect();
    if (direct) {
      const keys = await direct.keys(`${prefix}:*`);
      if (keys.length > 0) await direct.del(...keys);
      direct.disconnect();
    }
    await proxy?.close();
    await handle?.cleanup();
  });

  it('keeps a daily quota and a minute bucket exact across a cut, and adds the local counts back', async () => {
    const quota = 40;
    const keyId = 7;
    const subject = '203.0.113.9';
    // Before the cut: 10 of the key's 40 and 4 of the address's 20, alternating instances.
    for (let i = 0; i < 10; i++) await (i % 2 ? a : b).consumeDaily(keyId, quota);
    for (let i = 0; i < 4; i++) await (i % 2 ? a : b).consumeMinute('public', subject);
    // Counted in Redis: nothing to count at once (the scan's quota point then asks consumeMinute).
    expect(a.consumeMinuteNow('public', subject)).toBeUndefined();
    expect(a.readiness()).toEqual({ name: 'redis', ok: true, detail: 'ready' });

    proxy.cut();
    await waitFor('both clients away', () => clients.every((c) => c.status !== 'ready'));
    // Each allows half of what it last read was left: (40-9)/2 and (40-10)/2 of the day,
    // (20-3)/2 and (20-4)/2 of the minute, so the two together stay within the limits.
    const dailyDuring =
      (await allowed(30, () => a.consumeDaily(keyId, quota))) +
      (await allowed(30, () => b.consumeDaily(keyId, quota)));
    const minuteDuring =
      (await allowed(20, () => a.consumeMinute('public', subject))) +
      (await allowed(20, () => b.consumeMinute('public', subject)));
    expect(dailyDuring).toBe(30);
    expect(minuteDuring).toBe(16);
    const during = a.readiness();
    expect(during?.ok).toBe(true);
    expect(during?.degraded).toBe(true);
    expect(a.outage()).toMatchObject({ degraded: true, instances: 2, pending: 15 + 8 });

    proxy.restore();
    await waitFor('the local counts added back', () =>
      [a, b].every((l) => l.outage()?.degraded === false && l.outage()?.pending === 0),
    );
    const day = Math.floor(Date.now() / 86_400_000);
    expect(Number(await direct.get(`${prefix}:daily:${keyId}:${day}`))).toBe(40);
    expect(Number(await direct.get(`${prefix}:public:${subject}`))).toBe(20);
    // Shared again: the day and the minute are spent on both instances.
    expect(await allowed(1, () => a.consumeDaily(keyId, quota))).toBe(0);
    expect(await allowed(1, () => b.consumeMinute('public', subject))).toBe(0);
  }, 40_000);

  it('gives a key it has not served today a tenth of the quota, divided among the instances', async () => {
    proxy.cut();
    await waitFor('both clients away', () => clients.every((c) => c.status !== 'ready'));
    // 100 * 0.1 / 2 = 5 on each instance.
    expect(await allowed(10, () => a.consumeDaily(99, 100))).toBe(5);
    expect(await allowed(10, () => b.consumeDaily(99, 100))).toBe(5);
    proxy.restore();
    await waitFor('the local counts added back', () => [a, b].every((l) => l.outage()?.pending === 0));
    const day = Math.floor(Date.now() / 86_400_000);
    expect(Number(await direct.get(`${prefix}:daily:99:${day}`))).toBe(10);
  }, 40_000);
});
