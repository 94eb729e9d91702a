/**
 * Issue 18: the rollup path (daily buckets, per-address telemetry summary, one read per table)
 * must answer exactly what the model computes from the raw rows. Random histories of evidence,
 * telemetry, listings and clock moves (times near the 30-day window edge and UTC midnight,
 * observed_at out of order, synthetic rows, windows expiring as the clock moves on) are written
 * through the real services on both stores; at every check each address's rollup answer is
 * compared with the from-scratch computation, and the rollups with the raw rows; so are single
 * answers and warm-up assessments asked for together (coalesced into one read and one write).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, STORE_KINDS, skipStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { createBlocklist } from '../blocklist/index.ts';
import { createManualClock, DAY_MS, type ManualClock, toIso } from '../core/clock.ts';
import { createTelemetry } from '../telemetry/index.ts';
import { createReputation, type Reputation } from './reputation.ts';
import { type IntelFacts, listingFactsOf } from './sources.ts';
import type { ReputationData } from './types.ts';

const HOUR = 3_600_000;
const KINDS = ['pristine_trap', 'recycled_trap', 'typo_trap', 'smtp_honeypot'] as const;

/** A time relative to now, drawn near the places where windows and days are cut. */
const offset = fc.oneof(
  fc.integer({ min: -40 * DAY_MS, max: 0 }),
  // Around the 30-day edge, to the millisecond.
  fc.integer({ min: -30 * DAY_MS - 3 * HOUR, max: -30 * DAY_MS + 3 * HOUR }),
  fc.constantFrom(-30 * DAY_MS, -30 * DAY_MS - 1, -30 * DAY_MS + 1, 0, -1),
);

const op = fc.oneof(
  fc.record({
    kind: fc.constant('evidence' as const),
    events: fc.array(
      fc.record({
        ip: fc.nat(4),
        kind: fc.constantFrom(...KINDS),
        at: offset,
        synthetic: fc.boolean(),
      }),
      { minLength: 1, maxLength: 8 },
    ),
  }),
  fc.record({
    kind: fc.constant('telemetry' as const),
    observations: fc.array(
      fc.record({
        ip: fc.nat(4),
        at: fc.integer({ min: -47 * HOUR, max: 0 }),
        bounce: fc.option(fc.constantFrom(0, 0.05, 0.051, 0.2), { nil: null }),
        complaint: fc.option(fc.constantFrom(0, 0.001, 0.0011), { nil: null }),
        volume: fc.option(fc.constantFrom(0, 10, 6000), { nil: null }),
      }),
      { minLength: 1, maxLength: 6 },
    ),
  }),
  fc.record({
    kind: fc.constant('list' as const),
    ip: fc.nat(6),
    expiresIn: fc.option(fc.integer({ min: 1, max: 3 * DAY_MS }), { nil: null }),
  }),
  fc.record({ kind: fc.constant('delist' as const), ip: fc.nat(6) }),
  fc.record({
    kind: fc.constant('advance' as const),
    by: fc.oneof(
      fc.integer({ min: 0, max: 12 * DAY_MS }),
      fc.constantFrom(1, HOUR, DAY_MS, DAY_MS - 1, DAY_MS + 1),
    ),
  }),
  fc.record({ kind: fc.constant('toMidnight' as const), minus: fc.constantFrom(0, 1) }),
  fc.constant({ kind: 'check' as const }),
);

interface Setup {
  handle: TestStoreHandle;
  clock: ManualClock;
  reputation: Reputation;
  /** A second instance on the same store: it knows only the written rows. */
  another: () => Reputation;
  blocklist: ReturnType<typeof createBlocklist>;
  telemetry: ReturnType<typeof createTelemetry>;
}

function build(handle: TestStoreHandle): Setup {
  const clock = createManualClock('2026-06-15T12:00:00Z');
  const blocklist = createBlocklist({ store: handle.store, clock });
  const telemetry = createTelemetry({ store: handle.store, clock });
  const listings = listingFactsOf(blocklist);
  const intel: IntelFacts = { datacenter: (ip) => ip.endsWith('.1'), geoChangeCount90d: () => null };
  const another = () => createReputation({ store: handle.store, clock, telemetry, listings, intel });
  return { handle, clock, reputation: another(), another, blocklist, telemetry };
}

type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

/** Each run gets its own addresses: two /24s (one shared by three addresses) and an IPv6 one. */
function runAddresses(run: number): { ips: string[]; listable: string[] } {
  const ips = [
    `45.${run % 200}.${Math.floor(run / 200)}.1`,
    `45.${run % 200}.${Math.floor(run / 200)}.2`,
    `45.${run % 200}.${Math.floor(run / 200)}.3`,
    `46.${run % 200}.${Math.floor(run / 200)}.9`,
    `2001:db8:${run.toString(16)}::1`,
  ];
  const neighbours = [`45.${run % 200}.${Math.floor(run / 200)}.77`, `46.${run % 200}.0.78`];
  return { ips, listable: [...ips, ...neighbours] };
}

/** The batch assessment of the addresses is the from-scratch model's. */
async function checkBatch(s: Setup, ips: string[]): Promise<void> {
  const fast = await s.reputation.assessMany(ips);
  for (const [i, ip] of ips.entries()) {
    const slow = await s.reputation.assessFromScratch(ip);
    const a = fast[i];
    expect(a && { ...a, computedAt: 0 }, `${ip} at ${toIso(s.clock())}`).toEqual({
      ...slow,
      computedAt: 0,
    });
  }
}

/**
 * Single answers and warm-up assessments that arrive together are read and saved as one batch:
 * each must still be the model's answer, and its /24 and history what the stored rows say right
 * after. Returns the answers.
 */
async function checkCoalesced(s: Setup, ips: string[]): Promise<ReputationData[]> {
  const [answers, assessed] = await Promise.all([
    Promise.all(ips.map((ip) => s.reputation.forIp(ip))),
    Promise.all(ips.map((ip) => s.reputation.assess(ip))),
  ]);
  for (const [i, ip] of ips.entries()) {
    const slow = await s.reputation.assessFromScratch(ip);
    const one = answers[i];
    expect(one && [one.score, one.level, one.factors, one.blocklist.listed], ip).toEqual([
      slow.score,
      slow.level,
      slow.factors,
      slow.listed,
    ]);
    expect(assessed[i] && { ...assessed[i], computedAt: 0 }, ip).toEqual({
      ...slow,
      computedAt: 0,
    });
    if (!ip.includes(':')) expect(one?.subnet, ip).toEqual(await s.reputation.neighbors(ip));
    expect(one?.history, ip).toEqual((await s.reputation.forIp(ip)).history);
  }
  return answers;
}

/**
 * The computations are written behind the answers (write-behind.ts): once written, an instance
 * that keeps nothing reads the same /24s and histories from the rows.
 */
async function checkAsWritten(s: Setup, ips: string[], answers: ReputationData[]): Promise<void> {
  await s.reputation.flush();
  const fresh = s.another();
  for (const [i, ip] of ips.entries()) {
    const one = answers[i];
    if (!ip.includes(':')) expect(one?.subnet, `${ip} as written`).toEqual(await fresh.neighbors(ip));
    expect(one?.history, `${ip} as written`).toEqual((await fresh.forIp(ip)).history);
  }
  await fresh.close();
}

async function check(s: Setup, ips: string[]): Promise<void> {
  await checkBatch(s, ips);
  await checkAsWritten(s, ips, await checkCoalesced(s, ips));
}

/** Writes one operation's rows through the real services (or moves the clock, or checks). */
async function applyOp(s: Setup, o: Op, ips: string[], listable: string[]): Promise<void> {
  const now = s.clock();
  if (o.kind === 'evidence') {
    const events = o.events.map((e) => ({
      ip: ips[e.ip],
      kind: e.kind,
      observed_at: toIso(now + e.at),
      synthetic: e.synthetic,
    }));
    const res = await s.reputation.recordEvidence({ events });
    expect(res.rejected, res.errors.join('; ')).toBe(0);
  } else if (o.kind === 'telemetry') {
    const observations = o.observations.map((t) => ({
      ip: ips[t.ip],
      observed_at: toIso(now + t.at),
      bounce_rate: t.bounce,
      complaint_rate: t.complaint,
      volume_24h: t.volume ?? 1,
    }));
    await s.telemetry.ingest({ observations }, { keyId: 1, ownerId: 1 });
  } else if (o.kind === 'list') {
    await s.blocklist.list({
      ip: listable[o.ip] as string,
      type: 'spam',
      reason: 'property test',
      ...(o.expiresIn === null ? {} : { expiresAt: now + o.expiresIn }),
    });
  } else if (o.kind === 'delist') {
    await s.blocklist.delist(listable[o.ip] as string);
  } else if (o.kind === 'advance') {
    s.clock.advance(o.by);
  } else if (o.kind === 'toMidnight') {
    s.clock.set((Math.floor(now / DAY_MS) + 1) * DAY_MS - o.minus);
  } else {
    await check(s, ips);
  }
}

describe.each(STORE_KINDS)('rollup path = from-scratch model (%s)', (kind) => {
  const skip = skipStore(kind);
  let setup: Setup | undefined;
  let run = 0;
  beforeAll(async () => {
    if (!skip) setup = build(await createTestStore(kind));
  });
  afterAll(async () => {
    await setup?.reputation.close();
    await setup?.handle.cleanup();
  });

  it.skipIf(skip)(
    'random evidence, telemetry, listing and clock histories',
    async () => {
      const s = setup as Setup;
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 14 }), async (ops) => {
          run++;
          const { ips, listable } = runAddresses(run);
          for (const o of [...ops, { kind: 'check' as const }]) await applyOp(s, o, ips, listable);
          expect(await s.reputation.checkRollups()).toEqual([]);
        }),
        { numRuns: kind === 'sqlite' ? 60 : 25 },
      );
    },
    240_000,
  );
});
