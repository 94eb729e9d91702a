import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../core/clock.ts';
import { BASE_SCORE, levelForScore, scoreReputation } from './score.ts';
import type { EvidenceRecord, FactorName } from './types.ts';

const NOW = Date.parse('2026-03-15T12:00:00Z');
const ago = (days: number) => NOW - days * DAY_MS;
const times = (n: number, days = 1) => Array.from({ length: n }, () => ago(days));

function record(over: Partial<EvidenceRecord> = {}): EvidenceRecord {
  return {
    ip: '198.51.100.7',
    activeListing: null,
    trapHits: { pristine: [], recycled: [], typo: [] },
    honeypotEvents: [],
    telemetry: null,
    listedEvents: [],
    geoChangeCount: null,
    fcrdns: 'unknown',
    firstObservedAt: null,
    datacenter: null,
    subnetActiveListings: null,
    ...over,
  };
}

const traps = (pristine: number, recycled = 0, typo = 0) => ({
  trapHits: { pristine: times(pristine), recycled: times(recycled), typo: times(typo) },
});
const telemetry = (bounceRate: number | null, complaintRate: number | null = null) => ({
  telemetry: { bounceRate, complaintRate, volume24h: 1000, observedAt: ago(0.1) },
});

/** The impact of one factor, or null when the factor is not listed. */
function impact(r: EvidenceRecord, name: FactorName): number | null {
  return scoreReputation(r, NOW).factors.find((f) => f.name === name)?.impact ?? null;
}

const CONTRACT_ORDER: FactorName[] = [
  'blocklist_listing',
  'pristine_trap_hits',
  'recycled_trap_hits',
  'smtp_honeypot',
  'signal_corroboration',
  'telemetry_bounce_rate',
  'telemetry_complaint_rate',
  'neighbor_reputation',
  'listing_history',
  'geo_instability',
  'fcrdns',
  'ip_age_days',
  'datacenter_type',
];

describe('scoreReputation: each row of the spec table', () => {
  it.each([
    ['active blocklist listing -40', record({ activeListing: 'spam' }), 'blocklist_listing', -40],
    ['pristine trap hit -15', record(traps(1)), 'pristine_trap_hits', -15],
    ['recycled trap hit -5', record(traps(0, 1)), 'recycled_trap_hits', -5],
    ['typo trap hit -5', record(traps(0, 0, 1)), 'recycled_trap_hits', -5],
    ['SMTP honeypot -15', record({ honeypotEvents: times(1) }), 'smtp_honeypot', -15],
    [
      'corroboration -10 per additional type',
      record({ ...traps(1), honeypotEvents: times(1) }),
      'signal_corroboration',
      -10,
    ],
    ['bounce above 5 % -25', record(telemetry(0.06)), 'telemetry_bounce_rate', -25],
    ['complaint above 0.1 % -30', record(telemetry(null, 0.002)), 'telemetry_complaint_rate', -30],
    ['clean /24 +10 (neighbor_reputation)', record({ subnetActiveListings: 0 }), 'neighbor_reputation', 10],
    ['3 listings in 30 days -10', record({ listedEvents: times(3) }), 'listing_history', -10],
    ['geo instability 1-2 changes -10', record({ geoChangeCount: 2 }), 'geo_instability', -10],
    ['geo instability 3+ changes -20', record({ geoChangeCount: 3 }), 'geo_instability', -20],
    ['failed FCrDNS -15', record({ fcrdns: 'fail' }), 'fcrdns', -15],
    ['age +2 per 30 full days', record({ firstObservedAt: ago(90) }), 'ip_age_days', 6],
    ['datacenter +5 without negative signals', record({ datacenter: true }), 'datacenter_type', 5],
  ] as const)('%s', (_label, r, name, expected) => {
    expect(impact(r, name)).toBe(expected);
  });
});

describe('scoreReputation: caps and thresholds', () => {
  it.each([
    [0, null],
    [1, -15],
    [2, -30],
    [3, -45],
    [4, -45],
    [10, -45],
  ])('%i pristine hits -> %s', (n, expected) => {
    expect(impact(record(traps(n)), 'pristine_trap_hits')).toBe(expected);
  });

  it.each([
    [0, 0, null],
    [1, 0, -5],
    [3, 0, -15],
    [4, 0, -20],
    [5, 0, -20],
    [2, 2, -20],
    [0, 5, -20],
    [2, 1, -15],
  ])('%i recycled + %i typo hits -> %s', (recycled, typo, expected) => {
    expect(impact(record(traps(0, recycled, typo)), 'recycled_trap_hits')).toBe(expected);
  });

  it.each([
    [0, 0],
    [0.0499999, 0],
    [0.05, 0],
    [0.0500001, -25],
    [0.5, -25],
    [1, -25],
  ])('bounce rate %f -> %i', (rate, expected) => {
    expect(impact(record(telemetry(rate)), 'telemetry_bounce_rate')).toBe(expected);
  });

  it.each([
    [0, 0],
    [0.001, 0],
    [0.00100001, -30],
    [0.0011, -30],
    [1, -30],
  ])('complaint rate %f -> %i', (rate, expected) => {
    expect(impact(record(telemetry(null, rate)), 'telemetry_complaint_rate')).toBe(expected);
  });

  it.each([
    [0, 0],
    [29, 0],
    [29.999, 0],
    [30, 2],
    [59, 2],
    [60, 4],
    [89, 4],
    [90, 6],
    [299, 18],
    [300, 20],
    [600, 20],
    [3650, 20],
  ])('age %f days -> +%i', (days, expected) => {
    expect(impact(record({ firstObservedAt: ago(days) }), 'ip_age_days')).toBe(expected);
  });

  it('age: 30 days minus 1 ms is 29 full days', () => {
    expect(impact(record({ firstObservedAt: NOW - 30 * DAY_MS + 1 }), 'ip_age_days')).toBe(0);
  });

  it('an age anchor in the future (clock skew) is 0 days, not negative', () => {
    expect(impact(record({ firstObservedAt: NOW + DAY_MS }), 'ip_age_days')).toBe(0);
  });

  it.each([
    [0, 10],
    [1, 0],
    [2, 0],
    [3, -5],
    [5, -5],
    [6, -15],
    [255, -15],
  ])('%i active listings in the /24 -> %i', (n, expected) => {
    expect(impact(record({ subnetActiveListings: n }), 'neighbor_reputation')).toBe(expected);
  });

  it.each([
    [0, null],
    [1, 0],
    [2, 0],
    [3, -10],
    [9, -10],
  ])('%i listed events in 30 days -> %s', (n, expected) => {
    expect(impact(record({ listedEvents: times(n) }), 'listing_history')).toBe(expected);
  });

  it.each([
    [null, null],
    [0, 0],
    [1, -10],
    [2, -10],
    [3, -20],
    [50, -20],
  ])('geo change count %s -> %s', (n, expected) => {
    expect(impact(record({ geoChangeCount: n }), 'geo_instability')).toBe(expected);
  });

  it.each([
    ['unknown', null],
    ['pass', 0],
    ['fail', -15],
  ] as const)('FCrDNS %s -> %s', (status, expected) => {
    expect(impact(record({ fcrdns: status }), 'fcrdns')).toBe(expected);
  });
});

describe('scoreReputation: cross-signal corroboration (CONTRACT §7)', () => {
  const SIGNALS: Partial<EvidenceRecord>[] = [
    { activeListing: 'malware' },
    { trapHits: { pristine: times(1), recycled: [], typo: [] } },
    { trapHits: { pristine: [], recycled: [], typo: times(1) } },
    { honeypotEvents: times(1) },
    telemetry(0.2),
    telemetry(null, 0.2),
  ];
  // Combine the first k signal types; trap kinds and telemetry rates are merged by hand.
  function withTypes(k: number): EvidenceRecord {
    const r = record();
    if (k >= 1) r.activeListing = 'malware';
    if (k >= 2) r.trapHits.pristine = times(1);
    if (k >= 3) r.trapHits.typo = times(1);
    if (k >= 4) r.honeypotEvents = times(1);
    if (k >= 5)
      r.telemetry = { bounceRate: 0.2, complaintRate: k >= 6 ? 0.2 : 0, volume24h: 1, observedAt: ago(0) };
    return r;
  }

  it.each([
    [0, null],
    [1, null],
    [2, -10],
    [3, -20],
    [4, -30],
    [5, -30],
    [6, -30],
  ])('k=%i -> %s', (k, expected) => {
    expect(impact(withTypes(k), 'signal_corroboration')).toBe(expected);
  });

  it.each(SIGNALS.map((s, i) => [i, s] as const))('signal type %i alone is not corroborated', (_i, s) => {
    expect(impact(record(s), 'signal_corroboration')).toBeNull();
  });

  it('neighbourhood, listing history, geo and FCrDNS are not corroboration types', () => {
    const r = record({
      subnetActiveListings: 9,
      listedEvents: times(4),
      geoChangeCount: 5,
      fcrdns: 'fail',
      ...traps(1),
    });
    expect(impact(r, 'signal_corroboration')).toBeNull();
  });

  it('rates at the threshold are not signal types', () => {
    const r = record({ ...telemetry(0.05, 0.001), honeypotEvents: times(1) });
    expect(impact(r, 'signal_corroboration')).toBeNull();
  });
});

describe('scoreReputation: time windows', () => {
  it('counts events from exactly 30 days ago up to now; older and future events are ignored', () => {
    const boundary = NOW - 30 * DAY_MS;
    const r = record({
      trapHits: { pristine: [boundary, boundary - 1, NOW + 1], recycled: [NOW], typo: [NOW + DAY_MS] },
      honeypotEvents: [boundary - 1],
      listedEvents: [boundary, boundary, boundary - 1, NOW + 1],
    });
    const f = scoreReputation(r, NOW).factors;
    expect(f.find((x) => x.name === 'pristine_trap_hits')?.impact).toBe(-15);
    expect(f.find((x) => x.name === 'recycled_trap_hits')?.impact).toBe(-5);
    expect(f.find((x) => x.name === 'smtp_honeypot')).toBeUndefined();
    expect(f.find((x) => x.name === 'listing_history')?.impact).toBe(0);
  });

  it('moving the clock forward ages hits out of the window', () => {
    const r = record(traps(3));
    expect(scoreReputation(r, NOW).score).toBe(5);
    expect(scoreReputation(r, NOW + 30 * DAY_MS).score).toBe(50);
  });
});

describe('scoreReputation: datacenter bonus and negative signals', () => {
  it.each([
    ['nothing else', {}, 5],
    ['FCrDNS pass', { fcrdns: 'pass' }, 5],
    ['light /24 (impact 0)', { subnetActiveListings: 2 }, 5],
    ['bounce at 5 % (impact 0)', telemetry(0.05, 0.001), 5],
    ['2 listed events (impact 0)', { listedEvents: times(2) }, 5],
    ['geo known, no change', { geoChangeCount: 0 }, 5],
    ['active listing', { activeListing: 'spam' }, 0],
    ['one typo trap hit', traps(0, 0, 1), 0],
    ['honeypot', { honeypotEvents: times(1) }, 0],
    ['high bounce', telemetry(0.3), 0],
    ['high complaints', telemetry(0, 0.3), 0],
    ['moderate /24', { subnetActiveListings: 3 }, 0],
    ['3 listed events', { listedEvents: times(3) }, 0],
    ['geo change', { geoChangeCount: 1 }, 0],
    ['FCrDNS fail', { fcrdns: 'fail' }, 0],
  ] as const)('datacenter with %s -> +%i', (_label, over, expected) => {
    expect(
      impact(record({ datacenter: true, ...(over as Partial<EvidenceRecord>) }), 'datacenter_type'),
    ).toBe(expected);
  });

  it('a non-datacenter address is listed with 0; unknown is not listed', () => {
    expect(impact(record({ datacenter: false }), 'datacenter_type')).toBe(0);
    expect(impact(record({ datacenter: null }), 'datacenter_type')).toBeNull();
  });
});

describe('scoreReputation: unknown signals add nothing', () => {
  it('an address with no evidence at all scores 50 (IPv6) or 60 (IPv4 clean /24)', () => {
    expect(scoreReputation(record(), NOW)).toEqual({ score: 50, level: 'poor', factors: [] });
    const v4 = scoreReputation(record({ subnetActiveListings: 0 }), NOW);
    expect(v4.score).toBe(60);
    expect(v4.factors.map((f) => f.name)).toEqual(['neighbor_reputation']);
  });

  it('a telemetry observation lists only the rates it carries', () => {
    const names = (r: EvidenceRecord) => scoreReputation(r, NOW).factors.map((f) => f.name);
    expect(names(record(telemetry(0.01)))).toEqual(['telemetry_bounce_rate']);
    expect(names(record(telemetry(null, 0.0)))).toEqual(['telemetry_complaint_rate']);
    expect(names(record(telemetry(null, null)))).toEqual([]);
  });
});

describe('scoreReputation: clamping and levels', () => {
  it('clamps at 0 while the factors still state their full impacts', () => {
    const r = record({
      activeListing: 'phishing',
      ...traps(5, 5, 5),
      honeypotEvents: times(1),
      ...telemetry(1, 1),
    });
    const out = scoreReputation(r, NOW);
    expect(out.score).toBe(0);
    expect(BASE_SCORE + out.factors.reduce((s, f) => s + f.impact, 0)).toBe(
      50 - 40 - 45 - 20 - 15 - 30 - 25 - 30,
    );
  });

  it('the best possible evidence reaches 85: the upper clamp never binds', () => {
    const best = record({
      subnetActiveListings: 0,
      firstObservedAt: ago(5000),
      datacenter: true,
      fcrdns: 'pass',
      geoChangeCount: 0,
      ...telemetry(0, 0),
    });
    expect(scoreReputation(best, NOW)).toMatchObject({ score: 85, level: 'good' });
  });

  it.each([
    [100, 'good'],
    [80, 'good'],
    [79, 'neutral'],
    [60, 'neutral'],
    [59, 'poor'],
    [40, 'poor'],
    [39, 'bad'],
    [0, 'bad'],
  ] as const)('score %i is %s', (score, level) => {
    expect(levelForScore(score)).toBe(level);
  });
});

const arbTimes = fc.array(fc.integer({ min: NOW - 60 * DAY_MS, max: NOW + DAY_MS }), { maxLength: 8 });
const arbRate = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null });
const arbRecord: fc.Arbitrary<EvidenceRecord> = fc.record({
  ip: fc.constant('198.51.100.7'),
  activeListing: fc.constantFrom(null, 'spam' as const, 'malware' as const, 'phishing' as const),
  trapHits: fc.record({ pristine: arbTimes, recycled: arbTimes, typo: arbTimes }),
  honeypotEvents: arbTimes,
  telemetry: fc.option(
    fc.record({
      bounceRate: arbRate,
      complaintRate: arbRate,
      volume24h: fc.option(fc.nat(), { nil: null }),
      observedAt: fc.integer({ min: NOW - 2 * DAY_MS, max: NOW }),
    }),
    { nil: null },
  ),
  listedEvents: arbTimes,
  geoChangeCount: fc.option(fc.nat(20), { nil: null }),
  fcrdns: fc.constantFrom('pass' as const, 'fail' as const, 'unknown' as const),
  firstObservedAt: fc.option(fc.integer({ min: NOW - 4000 * DAY_MS, max: NOW + DAY_MS }), { nil: null }),
  datacenter: fc.option(fc.boolean(), { nil: null }),
  subnetActiveListings: fc.option(fc.nat(256), { nil: null }),
});

describe('scoreReputation: properties over random evidence', () => {
  it('impacts sum to score - 50 before clamping; score is an integer 0-85; factors in CONTRACT order', () => {
    fc.assert(
      fc.property(arbRecord, (r) => {
        const out = scoreReputation(r, NOW);
        const raw = BASE_SCORE + out.factors.reduce((s, f) => s + f.impact, 0);
        expect(out.score).toBe(Math.min(100, Math.max(0, raw)));
        expect(Number.isInteger(out.score)).toBe(true);
        expect(out.score).toBeLessThanOrEqual(85);
        expect(out.level).toBe(levelForScore(out.score));
        const order = out.factors.map((f) => CONTRACT_ORDER.indexOf(f.name));
        expect(order).toEqual([...order].sort((a, b) => a - b));
        expect(new Set(order).size).toBe(order.length);
        for (const f of out.factors) expect(Number.isInteger(f.impact)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('the datacenter bonus is +5 exactly when datacenter and no factor is negative', () => {
    fc.assert(
      fc.property(arbRecord, (r) => {
        const out = scoreReputation(r, NOW);
        const dc = out.factors.find((f) => f.name === 'datacenter_type');
        const negative = out.factors.some((f) => f.impact < 0);
        expect(dc === undefined).toBe(r.datacenter === null);
        if (dc) expect(dc.impact).toBe(r.datacenter === true && !negative ? 5 : 0);
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic and does not mutate its input', () => {
    fc.assert(
      fc.property(arbRecord, (r) => {
        const copy = structuredClone(r);
        expect(scoreReputation(r, NOW)).toEqual(scoreReputation(copy, NOW));
        expect(r).toEqual(copy);
      }),
      { numRuns: 100 },
    );
  });
});
