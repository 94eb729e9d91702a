/**
 * known.ts: the Bloom filter never forgets an address, and a lookup that skips its read for an
 * address the filter lacks still answers from a result another instance stored (SQLite: once
 * data_version moves; PostgreSQL: every lookup reads). The filter grows past its first size
 * without losing a row.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { type ParsedIp, parseIp } from '../core/ip.ts';
import { createScan, type ScanSettings } from './index.ts';
import { createBloom, createKnownAddresses } from './known.ts';
import { createScanStore } from './store.ts';

const settings: ScanSettings = {
  enabled: true,
  ports: ['9/http'],
  exclude: [],
  contact: 'mailto:ops@example.test',
  version: '0.0.0',
  ttlSeconds: 3600,
  ratePerMinute: 10,
  allowLoopback: true,
  connectTimeoutMs: 500,
  deadlineMs: 1000,
};
const mayQueue = async () => true;
const ip = (text: string) => parseIp(text) as ParsedIp;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createBloom', () => {
  it('answers "maybe" for every address added and "no" for nearly all others', () => {
    const bloom = createBloom(20_000);
    const added = Array.from({ length: 20_000 }, (_, i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    for (const ip of added) bloom.add(ip);
    expect(added.every((ip) => bloom.has(ip))).toBe(true);
    let maybe = 0;
    for (let i = 0; i < 20_000; i++) if (bloom.has(`2001:db8::${i.toString(16)}`)) maybe++;
    // 10 bits and 7 hashes per address: about 0.8% in theory.
    expect(maybe / 20_000).toBeLessThan(0.03);
    expect(bloom.size).toBe(20_000);
  });
});

describe.each(STORE_KINDS)('known addresses (%s)', (kind) => {
  const skip = skipStore(kind);
  let handle: TestStoreHandle | undefined;
  afterEach(async () => {
    await handle?.cleanup();
    handle = undefined;
  });

  it.skipIf(skip)(
    'answers from a result another instance stored after this one loaded its filter',
    async () => {
      handle = await createTestStore(kind);
      const here = createScanStore(handle.store);
      const there = createScanStore(handle.reopen());
      expect(here.inserts === null).toBe(kind === 'postgres');
      const scan = createScan({ settings, store: here, clock: Date.now, worker: 'here' });

      // The first lookup loads the filter (SQLite) and queues the address.
      expect(
        ((await scan.forLookup(ip('127.0.0.2'), mayQueue)) as { scan: { status: string } }).scan.status,
      ).toBe('pending');
      await scan.settled();
      expect(await here.read('127.0.0.2')).toMatchObject({ status: 'queued' });

      // The other instance queues, scans and stores 127.0.0.3.
      expect(await there.queue(['127.0.0.3'], Date.now())).toEqual(['127.0.0.3']);
      let row = await there.claim('there', Date.now(), 60_000);
      while (row && row.ip !== '127.0.0.3') row = await there.claim('there', Date.now(), 60_000);
      expect(row?.ip).toBe('127.0.0.3');
      const report = { service_title: 'Hello', service_server: 'nginx', tls_organization: null };
      await there.finish('127.0.0.3', 'there', {
        status: 'done',
        reason: null,
        report: JSON.stringify({ ip: '127.0.0.3', ports: [], status: 'done', reason: null, ...report }),
        scanned_at: Date.now(),
        expires_at: Date.now() + 3_600_000,
      });
      // SQLite reads data_version at most every 5 ms.
      await sleep(20);
      const answer = await scan.forLookup(ip('127.0.0.3'), mayQueue);
      expect(answer).toMatchObject({ scan: { status: 'done' }, ...report });
      await scan.settled();
      expect(scan.counts().queued).toBe(1);
    },
  );

  it.skipIf(skip || kind === 'postgres')('grows past its first size and still knows every row', async () => {
    handle = await createTestStore(kind);
    const store = createScanStore(handle.store);
    const known = createKnownAddresses(store.inserts);
    const ips = Array.from(
      { length: 70_000 },
      (_, i) => `198.${18 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`,
    );
    for (let from = 0; from < ips.length; from += 500) await store.queue(ips.slice(from, from + 500), 1000);
    // The first call starts loading; nothing is surely absent until the load ends.
    expect(known.surelyAbsent('203.0.113.1')).toBe(false);
    await known.settled();
    expect(ips.filter((ip) => known.surelyAbsent(ip))).toEqual([]);
    let absent = 0;
    for (let i = 0; i < 1000; i++) if (known.surelyAbsent(`2001:db8::${i.toString(16)}`)) absent++;
    expect(absent).toBeGreaterThan(950);
  });
});
