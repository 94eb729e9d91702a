import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { createManualClock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { AppError } from '../core/errors.ts';
import { createDomainCheckCache, domainCacheKey } from './index.ts';

let server: ZoneServer;
beforeAll(async () => {
  server = await startZoneServer({
    'one.com': [{ type: 'TXT', data: 'v=spf1 -all' }],
    'two.com': [{ type: 'TXT', data: 'v=spf1 ~all' }],
    'three.com': [{ type: 'TXT', data: 'v=spf1 ?all' }],
    'slow.com': [{ type: 'TIMEOUT' }],
  });
});
afterAll(async () => {
  await server.close();
});

const setup = (maxEntries?: number) => {
  const clock = createManualClock('2026-06-01T00:00:00Z');
  const dns = createDnsClient({ servers: server.servers, timeoutMs: 100, tries: 1 });
  return { clock, cache: createDomainCheckCache({ dns, clock, ...(maxEntries ? { maxEntries } : {}) }) };
};

describe('createDomainCheckCache', () => {
  it('keys on the normalized domain and the selector set, in any order', () => {
    expect(domainCacheKey('a.com', ['x', 'y'])).toBe(domainCacheKey('a.com', ['y', 'x']));
    expect(domainCacheKey('a.com', [])).not.toBe(domainCacheKey('a.com', ['default']));
  });

  it('shares one computation between concurrent misses', async () => {
    const { cache } = setup();
    const before = server.queries.length;
    const [a, b] = await Promise.all([cache.check('one.com'), cache.check('ONE.com.')]);
    const sent = server.queries.length - before;
    expect(a.result).toBe(b.result);
    expect([a.status, b.status]).toEqual(['MISS', 'MISS']);
    await cache.check('one.com');
    expect(server.queries.length - before).toBe(sent);
    expect(sent).toBe(a.result.dns.lookups);
  });

  it('evicts the least recently used entry past maxEntries', async () => {
    const { cache } = setup(2);
    await cache.check('one.com');
    await cache.check('two.com');
    expect((await cache.check('one.com')).status).toBe('HIT');
    await cache.check('three.com');
    expect(cache.size()).toBe(2);
    expect((await cache.check('two.com')).status).toBe('MISS');
    expect((await cache.check('three.com')).status).toBe('HIT');
  });

  it('does not store a check cut short by timeouts', async () => {
    const { cache } = setup();
    const first = await cache.check('slow.com');
    expect(first.maxAgeSeconds).toBe(0);
    expect(first.result.dns.errors.TIMEOUT).toBeGreaterThan(0);
    expect(cache.size()).toBe(0);
  });

  it('refuses names that are not public hostnames before any DNS work', async () => {
    const { cache } = setup();
    const before = server.queries.length;
    for (const bad of ['', 'localhost', 'a b.com', 'co.uk']) {
      await expect(cache.check(bad)).rejects.toSatisfy(
        (e) => e instanceof AppError && e.code === 'INVALID_DOMAIN',
      );
    }
    expect(server.queries.length).toBe(before);
  });
});
