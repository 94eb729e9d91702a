/**
 * The many-blocklists check against real DNS zones on 127.0.0.1 (test/helpers/dnsbl-fixture-zones.ts):
 * each way a list answers read right, the test points asked first, refusals never read as
 * listings, answers kept for their time and asked again after it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import {
  dnsblFixtureZones,
  FIXTURE_ZONES,
  LISTED_IP,
  LISTED_REASON,
} from '../../test/helpers/dnsbl-fixture-zones.ts';
import { SETTINGS } from '../config.ts';
import { createManualClock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { createListCheck, type ListCheck, parseCheckZones } from './index.ts';
import { KNOWN_ZONES } from './zones.ts';

let server: ZoneServer;
beforeAll(async () => {
  server = await startZoneServer(dnsblFixtureZones());
});
afterAll(async () => {
  await server.close();
});

function listCheck(cacheSeconds = 900, zones: readonly string[] = FIXTURE_ZONES) {
  const clock = createManualClock('2026-06-15T12:00:00Z');
  const check = createListCheck({
    dns: createDnsClient({ servers: server.servers, timeoutMs: 150, tries: 1 }),
    clock,
    zones: parseCheckZones(zones),
    cacheSeconds,
    ownZone: 'bl.netrep.test',
    own: async (ip) => ({ ip, listed: false }),
  });
  return { check, clock };
}

const byZone = async (c: ListCheck, ip: string) =>
  Object.fromEntries((await c.check(ip)).zones.map((z) => [z.zone, z]));

describe('createListCheck', () => {
  it('reads each list: listed with codes and reason, clean, refused, unavailable, untrusted', async () => {
    const { check } = listCheck();
    const answer = await check.check(LISTED_IP);
    expect(answer.netrep).toEqual({ zone: 'bl.netrep.test', ip: LISTED_IP, listed: false });
    const z = Object.fromEntries(answer.zones.map((a) => [a.zone, a]));
    expect(answer.zones.map((a) => a.zone)).toEqual([...FIXTURE_ZONES]);
    expect(z['listing.test']).toMatchObject({
      status: 'listed',
      return_codes: ['127.0.0.4'],
      reason: LISTED_REASON,
      detail: null,
      cached: false,
      checked_at: '2026-06-15T12:00:00.000Z',
    });
    expect(z['clean.test']).toMatchObject({ status: 'not_listed', return_codes: [], reason: null });
    expect(z['refusing.test']?.status).toBe('refused');
    expect(z['refusing.test']?.detail).toContain('public or open resolver (127.255.255.254)');
    expect(z['excessive.test']?.status).toBe('refused');
    expect(z['excessive.test']?.detail).toContain('excessive number of queries (127.255.255.255)');
    expect(z['slow.test']?.status).toBe('unavailable');
    expect(z['slow.test']?.detail).toContain('test point 127.0.0.2: no answer in time');
    expect(z['broken.test']?.status).toBe('unavailable');
    expect(z['broken.test']?.detail).toContain('lists 127.0.0.1');
    expect(answer.summary).toEqual({ listed: 1, not_listed: 1, refused: 2, unavailable: 2, not_checked: 0 });
  });

  it('asks the test points before the address, and no address of a zone that fails them', async () => {
    const { check } = listCheck();
    const before = server.queries.length;
    await check.check('198.51.100.7');
    const asked = server.queries.slice(before).map((q) => `${q.name.toLowerCase()} ${q.type}`);
    for (const zone of ['slow.test', 'broken.test', 'refusing.test']) {
      expect(asked.filter((q) => q.endsWith(`.${zone} A`) && q.startsWith('7.100.'))).toEqual([]);
    }
    const clean = asked.indexOf('7.100.51.198.clean.test A');
    expect(clean).toBeGreaterThan(asked.indexOf('2.0.0.127.clean.test A'));
    expect(clean).toBeGreaterThan(asked.indexOf('1.0.0.127.clean.test A'));
  });

  it('keeps answers for their time: a listing its TTL (120 s), not listed 5 minutes, unavailable 1 minute', async () => {
    const { check, clock } = listCheck();
    await check.check(LISTED_IP);
    const before = server.queries.length;
    clock.advance(30_000);
    const again = await byZone(check, LISTED_IP);
    expect(again['listing.test']).toMatchObject({
      status: 'listed',
      cached: true,
      checked_at: '2026-06-15T12:00:00.000Z',
    });
    expect(again['slow.test']?.cached).toBe(true);
    expect(server.queries.length).toBe(before);
    clock.advance(91_000);
    const later = await byZone(check, LISTED_IP);
    expect(later['listing.test']).toMatchObject({ status: 'listed', cached: false });
    expect(later['clean.test']?.cached).toBe(true);
    expect(later['slow.test']?.cached).toBe(false);
  });

  it('keeps nothing with a cache of 0 seconds', async () => {
    const { check } = listCheck(0, ['listing.test']);
    await check.check(LISTED_IP);
    const before = server.queries.length;
    expect((await check.check(LISTED_IP)).zones[0]?.cached).toBe(false);
    expect(server.queries.length).toBeGreaterThan(before);
  });

  it('does not ask an IPv4-only list about an IPv6 address', async () => {
    const { check } = listCheck(900, ['bl.spamcop.net', 'clean.test']);
    const before = server.queries.length;
    const z = await byZone(check, '2001:db8::1');
    expect(z['bl.spamcop.net']).toMatchObject({
      status: 'not_checked',
      name: 'SpamCop',
      delist_url: 'https://www.spamcop.net/bl.shtml',
    });
    expect(z['clean.test']?.status).toBe('not_listed');
    expect(server.queries.slice(before).some((q) => q.name.toLowerCase().endsWith('spamcop.net'))).toBe(
      false,
    );
  });
});

describe('parseCheckZones', () => {
  it('knows every default list, with its name and delisting page', () => {
    const zones = parseCheckZones(SETTINGS.dnsblCheckZones.default.split(','));
    expect(zones.map((z) => z.name)).toEqual(KNOWN_ZONES.map((z) => z.name));
    for (const z of zones) expect(z.delistUrl).toMatch(/^https:\/\//);
  });

  it('takes a delisting page for any zone, each zone once, and refuses what is not a zone or a URL', () => {
    expect(parseCheckZones(['Listing.Test.=https://listing.test/delist', 'listing.test'])).toEqual([
      {
        zone: 'listing.test',
        name: 'listing.test',
        delistUrl: 'https://listing.test/delist',
        families: [4, 6],
      },
    ]);
    expect(() => parseCheckZones(['not a zone'])).toThrow(/not a DNS zone name/);
    expect(() => parseCheckZones(['x.test=javascript:alert(1)'])).toThrow(/http\(s\) URL/);
  });
});
