/**
 * The many-blocklists check (issue 36 item 6): one address asked of every configured public
 * DNSBL in parallel, with the audit probes' safety. Each zone's RFC 5782 test points are asked
 * first (127.0.0.2 listed, 127.0.0.1 not); a zone that fails them gets no address query and
 * answers `refused` or `unavailable` with the reason. Answers are cached per zone and address.
 */
import { probeDnsbl } from '../audit/index.ts';
import type { CheckAnswer } from '../blocklist/index.ts';
import { type Clock, toIso } from '../core/clock.ts';
import type { DnsClient } from '../core/dns/index.ts';
import { parseIp } from '../core/ip.ts';
import { createAnswerCache } from './answer-cache.ts';
import type { BlocklistsAnswer, ZoneAnswer, ZoneStatus } from './types.ts';
import { addressVerdict, testPointVerdict, type Verdict } from './verdict.ts';
import type { CheckZone } from './zones.ts';

export { BlocklistsAnswer, ZoneAnswer } from './types.ts';
export { type CheckZone, parseCheckZones } from './zones.ts';

/** A not-listed answer is kept this long at most (NXDOMAIN's own TTL is not read). */
const NOT_LISTED_SECONDS = 300;
/** A list that did not answer is asked again after this long at most. */
const UNAVAILABLE_SECONDS = 60;

export interface ListCheckOptions {
  dns: Pick<DnsClient, 'aWithTtl' | 'txt'>;
  clock: Clock;
  zones: readonly CheckZone[];
  /** Longest time an answer is kept, in seconds (NETREP_DNSBL_CHECK_CACHE_SECONDS; 0: none). */
  cacheSeconds: number;
  maxEntries?: number;
  /** This instance's own zone (NETREP_DNSBL_ZONE) and its answer, read from the blocklist itself. */
  ownZone: string;
  own(ip: string): Promise<CheckAnswer>;
}

export interface ListCheck {
  readonly zones: readonly CheckZone[];
  /** The own zone's and every public zone's answer (in the zones' order) for a normalized address. */
  check(ip: string): Promise<BlocklistsAnswer>;
}

export function createListCheck(options: ListCheckOptions): ListCheck {
  const { dns, clock, zones } = options;
  const cap = Math.max(0, options.cacheSeconds);
  const cache = createAnswerCache<Verdict | null>({ clock, maxEntries: options.maxEntries ?? 20_000 });
  const keepSeconds: Record<ZoneStatus, (v: Verdict) => number> = {
    listed: (v) => v.ttl ?? 0,
    not_listed: () => NOT_LISTED_SECONDS,
    refused: () => cap,
    unavailable: () => UNAVAILABLE_SECONDS,
    not_checked: () => 0,
  };
  /** A passed zone (null) is kept the whole cap; anything else by its status, never beyond the cap. */
  const keepMs = (v: Verdict | null) => 1000 * Math.min(cap, v === null ? cap : keepSeconds[v.status](v));

  const testPoints = (zone: string) =>
    cache.get(
      `test|${zone}`,
      async () => {
        const [listed, unlisted] = await Promise.all([
          probeDnsbl(dns, zone, '127.0.0.2'),
          probeDnsbl(dns, zone, '127.0.0.1'),
        ]);
        return testPointVerdict(listed, unlisted);
      },
      keepMs,
    );

  async function ask(z: CheckZone, ip: string, family: 4 | 6): Promise<ZoneAnswer> {
    const base = { zone: z.zone, name: z.name, delist_url: z.delistUrl };
    if (!z.families.includes(family)) {
      const detail = `${z.name} publishes IPv${z.families[0]} addresses only`;
      const v: Verdict = { status: 'not_checked', returnCodes: [], reason: null, detail, ttl: null };
      return answerOf(base, v, clock(), false);
    }
    const tested = await testPoints(z.zone);
    if (tested.value !== null) return answerOf(base, tested.value, tested.at, tested.cached);
    const asked = await cache.get(
      `ip|${z.zone}|${ip}`,
      async () => addressVerdict(await probeDnsbl(dns, z.zone, ip)),
      keepMs,
    );
    return answerOf(base, asked.value, asked.at, asked.cached);
  }

  return {
    zones,
    async check(ip) {
      const family = parseIp(ip)?.family ?? 4;
      const [own, answers] = await Promise.all([
        options.own(ip),
        Promise.all(zones.map((z) => ask(z, ip, family))),
      ]);
      const summary = { listed: 0, not_listed: 0, refused: 0, unavailable: 0, not_checked: 0 };
      for (const a of answers) summary[a.status] += 1;
      return { ip: own.ip, netrep: { zone: options.ownZone, ...own }, zones: answers, summary };
    },
  };
}

function answerOf(
  base: Pick<ZoneAnswer, 'zone' | 'name' | 'delist_url'>,
  v: Verdict | null,
  at: number,
  cached: boolean,
): ZoneAnswer {
  return {
    ...base,
    status: v?.status ?? 'not_listed',
    return_codes: v?.returnCodes ?? [],
    reason: v?.reason ?? null,
    detail: v?.detail ?? null,
    checked_at: toIso(at),
    cached,
  };
}
