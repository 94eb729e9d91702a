/**
 * Issue 18: the facts each instance keeps (facts-cache.ts) must never answer what the store no
 * longer says. Two instances on two connections to one store (SQLite file, PostgreSQL schema):
 * instance B answers, keeps the facts, answers again from them; then every kind of write, made
 * through instance A's services, and every change by time alone (a listing expires, an event
 * leaves the 30-day window) must show in B's next answer, equal to the from-scratch model.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createBlocklist } from '../blocklist/index.ts';
import { createManualClock, DAY_MS, type ManualClock, toIso } from '../core/clock.ts';
import type { Store } from '../store/index.ts';
import { createTelemetry } from '../telemetry/index.ts';
import { factsValidUntil } from './facts-cache.ts';
import { createReputation } from './reputation.ts';
import { EVIDENCE_WINDOW_MS } from './score.ts';
import { type IntelFacts, listingFactsOf } from './sources.ts';
import { NO_EVENTS } from './window.ts';

const HOUR = 3_600_000;

const instances: { reputation: { close(): Promise<void> } }[] = [];

function instance(store: Store, clock: ManualClock) {
  const blocklist = createBlocklist({ store, clock });
  const telemetry = createTelemetry({ store, clock });
  const listings = listingFactsOf(blocklist);
  const intel: IntelFacts = { datacenter: () => false, geoChangeCount90d: () => null };
  const reputation = createReputation({ store, clock, telemetry, listings, intel });
  const made = { blocklist, telemetry, reputation };
  instances.push(made);
  return made;
}

describe('factsValidUntil', () => {
  const listing = { activeListing: null, listedEvents: [], subnetActiveListings: 0, changesAt: null };
  const window = { firstAt: 1, inside: NO_EVENTS, cut: [], insideFirstAt: null, futureFirstAt: null };
  const now = 100 * DAY_MS;
  it('keeps facts with nothing due for ever, and until the first listing expiry', () => {
    expect(factsValidUntil(window, listing, now)).toBe(Number.POSITIVE_INFINITY);
    expect(factsValidUntil(undefined, { ...listing, changesAt: now + 5 }, now)).toBe(now + 5);
  });
  it('ends when the earliest event inside leaves the window or a later one enters it', () => {
    expect(factsValidUntil({ ...window, insideFirstAt: now - DAY_MS }, listing, now)).toBe(
      now - DAY_MS + EVIDENCE_WINDOW_MS + 1,
    );
    expect(factsValidUntil({ ...window, futureFirstAt: now + HOUR }, listing, now)).toBe(now + HOUR);
  });
  it('keeps nothing when a day is cut by the window or listings give no bound', () => {
    const cutDay = { day: 1, pristine: 1, recycled: 0, typo: 0, honeypot: 0, firstAt: 0, lastAt: 2 };
    expect(factsValidUntil({ ...window, cut: [cutDay] }, listing, now)).toBe(now);
    const { changesAt: _, ...unbounded } = listing;
    expect(factsValidUntil(window, unbounded, now)).toBe(now);
  });
});

describe.each(STORE_KINDS)('kept facts (%s)', (kind) => {
  const skip = skipStore(kind);
  let handle: TestStoreHandle | undefined;
  afterEach(async () => {
    for (const i of instances.splice(0)) await i.reputation.close();
    await handle?.cleanup();
    handle = undefined;
  });

  it.skipIf(skip)('every write and every change by time shows in the other instance at once', async () => {
    handle = await createTestStore(kind);
    const clock = createManualClock('2026-06-15T12:00:00Z');
    const a = instance(handle.store, clock);
    const b = instance(handle.reopen(), clock);
    const ip = '45.10.20.30';
    const neighbour = '45.10.20.99';
    const seen: string[] = [];
    // B answers twice (the second from what it kept) and must agree with the model each time.
    const answer = async (step: string) => {
      for (let i = 0; i < 2; i++) {
        const kept = await b.reputation.assess(ip);
        const slow = await b.reputation.assessFromScratch(ip);
        expect({ ...kept, computedAt: 0 }, step).toEqual({ ...slow, computedAt: 0 });
        const single = await b.reputation.forIp(ip);
        expect([single.score, single.factors], step).toEqual([slow.score, slow.factors]);
      }
      const key = JSON.stringify((await b.reputation.assess(ip)).factors);
      expect(seen, `${step} changed nothing: the test would not notice stale facts`).not.toContain(key);
      seen.push(key);
    };
    const now = clock();
    await a.telemetry.ingest(
      { observations: [{ ip, observed_at: toIso(now - 2 * HOUR), bounce_rate: 0.01, volume_24h: 100 }] },
      { keyId: 1, ownerId: 1 },
    );
    await answer('telemetry');
    await a.reputation.recordEvidence({
      events: [{ ip, kind: 'pristine_trap', observed_at: toIso(now - 29 * DAY_MS) }],
    });
    await answer('evidence');
    await a.telemetry.ingest(
      { observations: [{ ip, observed_at: toIso(now - HOUR), bounce_rate: 0.2, volume_24h: 100 }] },
      { keyId: 1, ownerId: 1 },
    );
    await answer('new telemetry');
    await a.reputation.recordFcrdns({
      ip,
      ptrHostname: null,
      forwardMatch: false,
      forwardIps: [],
      lastCheckedAt: now,
      lastObservedAt: now - HOUR,
    });
    await answer('fcrdns');
    await a.blocklist.list({ ip: neighbour, type: 'spam', reason: 'test', expiresAt: now + 6 * HOUR });
    await answer('a listing in the /24');
    await a.blocklist.list({ ip, type: 'spam', reason: 'test', expiresAt: now + 2 * HOUR });
    await answer('a listing of the address');
    clock.advance(2 * HOUR);
    await answer('the listing expired (no write)');
    clock.advance(4 * HOUR);
    await answer("the neighbour's listing expired (no write)");
    // The trap hit at now − 29 days leaves the window one day and 1 ms later.
    clock.set(now - 29 * DAY_MS + EVIDENCE_WINDOW_MS);
    await b.reputation.assess(ip);
    clock.advance(1);
    await answer('the trap hit left the window (no write)');
    await a.blocklist.delist(ip);
    await a.blocklist.list({ ip, type: 'spam', reason: 'again' });
    await answer('listed again');
  });

  it.skipIf(skip)('a kept score is made again when the age in days or the dataset facts change', async () => {
    handle = await createTestStore(kind);
    const clock = createManualClock('2026-06-15T12:00:00Z');
    const store = handle.store;
    const telemetry = createTelemetry({ store, clock });
    const dataset = { datacenter: false as boolean | null, geo: null as number | null };
    const intel: IntelFacts = { datacenter: () => dataset.datacenter, geoChangeCount90d: () => dataset.geo };
    const reputation = createReputation({
      store,
      clock,
      telemetry,
      listings: listingFactsOf(createBlocklist({ store, clock })),
      intel,
      // No computation is written during the test: a write raises the /24's stamp (a new member,
      // or a changed score), which drops the kept facts, and the write-behind timer runs on real
      // time, so on a loaded machine it could land between `kept` and `again` below.
      writeBehindMs: 3_600_000,
    });
    instances.push({ reputation });
    const ip = '45.10.21.30';
    await telemetry.ingest(
      {
        observations: [{ ip, observed_at: toIso(clock() - HOUR), bounce_rate: 0.01, volume_24h: 10 }],
      },
      { keyId: 1, ownerId: 1 },
    );
    // 59 full days after the first observation: +2 (one full 30 days).
    clock.advance(59 * DAY_MS);
    const factor = async (name: string) => {
      const kept = await reputation.assess(ip);
      const again = await reputation.assess(ip);
      const slow = await reputation.assessFromScratch(ip);
      expect(again.factors).toBe(kept.factors);
      expect([kept.score, kept.factors]).toEqual([slow.score, slow.factors]);
      return kept.factors.find((f) => f.name === name);
    };
    expect(await factor('ip_age_days')).toMatchObject({ impact: 2 });
    clock.advance(DAY_MS);
    expect(await factor('ip_age_days')).toMatchObject({ impact: 4 });
    expect(await factor('datacenter_type')).toMatchObject({ impact: 0 });
    dataset.datacenter = true;
    expect(await factor('datacenter_type')).toMatchObject({ impact: 5 });
    expect(await factor('geo_instability')).toBeUndefined();
    dataset.geo = 3;
    expect(await factor('geo_instability')).toMatchObject({ impact: -20 });
  });
});
