import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../core/errors.ts';
import {
  CLOCK_SKEW_MS,
  parseTimestamp,
  validateIngest,
  validateIngestBody,
  validateObservation,
} from './validate.ts';

const NOW = Date.parse('2026-03-15T12:00:00Z');
const HOUR = 3_600_000;

describe('validateObservation: accepted', () => {
  it('normalizes the IP and keeps the measurements', () => {
    expect(
      validateObservation(
        {
          ip: ' 2001:DB8:0::1 ',
          bounce_rate: 0.02,
          complaint_rate: 0,
          volume_24h: 1200,
          observed_at: '2026-03-15T11:00:00Z',
        },
        0,
        NOW,
      ),
    ).toEqual({
      ip: '2001:db8::1',
      bounceRate: 0.02,
      complaintRate: 0,
      volume24h: 1200,
      observedAt: NOW - HOUR,
    });
  });

  it('defaults observed_at to now and leaves absent or null measurements null', () => {
    expect(validateObservation({ ip: '198.51.100.1', volume_24h: 0, bounce_rate: null }, 3, NOW)).toEqual({
      ip: '198.51.100.1',
      bounceRate: null,
      complaintRate: null,
      volume24h: 0,
      observedAt: NOW,
    });
  });

  it.each([
    ['exactly 48 h old', '2026-03-13T12:00:00Z', NOW - 48 * HOUR],
    ['with an offset', '2026-03-15T13:30:00+02:00', NOW - 30 * 60_000],
    ['with a negative offset', '2026-03-15T06:00:00-05:00', NOW - HOUR],
    ['with fractional seconds', '2026-03-15T11:59:59.123456Z', NOW - 877],
    ['lower-case t and z', '2026-03-15t11:00:00z', NOW - HOUR],
    ['exactly now', '2026-03-15T12:00:00Z', NOW],
    ['within the clock skew, stored as now', '2026-03-15T12:00:59Z', NOW],
    ['at the skew limit', '2026-03-15T12:01:00Z', NOW],
  ])('observed_at %s', (_label, at, stored) => {
    const out = validateObservation({ ip: '198.51.100.1', bounce_rate: 0, observed_at: at }, 0, NOW);
    expect(out).toMatchObject({ observedAt: stored });
  });

  it.each([0, 1, 0.05, 1e-9])('bounce and complaint rate %f', (rate) => {
    expect(
      validateObservation({ ip: '198.51.100.1', bounce_rate: rate, complaint_rate: rate }, 0, NOW),
    ).toMatchObject({
      bounceRate: rate,
      complaintRate: rate,
    });
  });

  it('ignores unknown fields, including __proto__ from JSON', () => {
    const raw = JSON.parse('{"ip":"198.51.100.1","volume_24h":5,"__proto__":{"ip":"x"},"extra":true}');
    expect(validateObservation(raw, 0, NOW)).toMatchObject({ ip: '198.51.100.1', volume24h: 5 });
  });
});

describe('validateObservation: rejected, naming the index and reason', () => {
  it.each([
    [null, 'observation must be an object'],
    ['198.51.100.1', 'observation must be an object'],
    [[{ ip: '198.51.100.1' }], 'observation must be an object'],
    [{}, 'ip is required'],
    [{ ip: null, volume_24h: 1 }, 'ip is required'],
    [{ ip: 'example.com', volume_24h: 1 }, 'ip is not a valid IP address'],
    [{ ip: '256.1.1.1', volume_24h: 1 }, 'ip is not a valid IP address'],
    [{ ip: '010.1.1.1', volume_24h: 1 }, 'ip is not a valid IP address'],
    [{ ip: 167772161, volume_24h: 1 }, 'ip is not a valid IP address'],
    [{ ip: '198.51.100.0/24', volume_24h: 1 }, 'ip is not a valid IP address'],
    [{ ip: 'fe80::1%eth0', volume_24h: 1 }, 'ip is not a valid IP address'],
    [{ ip: '198.51.100.1', bounce_rate: -0.01 }, 'bounce_rate must be a number between 0.0 and 1.0'],
    [{ ip: '198.51.100.1', bounce_rate: 1.0000001 }, 'bounce_rate must be a number between 0.0 and 1.0'],
    [{ ip: '198.51.100.1', bounce_rate: '0.1' }, 'bounce_rate must be a number between 0.0 and 1.0'],
    [{ ip: '198.51.100.1', bounce_rate: Number.NaN }, 'bounce_rate must be a number between 0.0 and 1.0'],
    [
      { ip: '198.51.100.1', bounce_rate: Number.POSITIVE_INFINITY },
      'bounce_rate must be a number between 0.0 and 1.0',
    ],
    [{ ip: '198.51.100.1', complaint_rate: 2 }, 'complaint_rate must be a number between 0.0 and 1.0'],
    [{ ip: '198.51.100.1', complaint_rate: true }, 'complaint_rate must be a number between 0.0 and 1.0'],
    [{ ip: '198.51.100.1', volume_24h: -1 }, 'volume_24h must be an integer >= 0'],
    [{ ip: '198.51.100.1', volume_24h: 1.5 }, 'volume_24h must be an integer >= 0'],
    [{ ip: '198.51.100.1', volume_24h: 2 ** 53 }, 'volume_24h must be an integer >= 0'],
    [{ ip: '198.51.100.1', volume_24h: '100' }, 'volume_24h must be an integer >= 0'],
    [{ ip: '198.51.100.1' }, 'at least one of bounce_rate, complaint_rate or volume_24h is required'],
    [
      { ip: '198.51.100.1', volume_24h: 1, observed_at: 1773576000000 },
      'observed_at must be an ISO 8601 date-time string',
    ],
    [
      { ip: '198.51.100.1', volume_24h: 1, observed_at: '2026-03-15' },
      'observed_at must be an ISO 8601 date-time with a time zone',
    ],
    [
      { ip: '198.51.100.1', volume_24h: 1, observed_at: '2026-03-15T11:00:00' },
      'observed_at must be an ISO 8601 date-time with a time zone',
    ],
    [
      { ip: '198.51.100.1', volume_24h: 1, observed_at: '2026-02-30T11:00:00Z' },
      'observed_at must be an ISO 8601 date-time with a time zone',
    ],
    [
      { ip: '198.51.100.1', volume_24h: 1, observed_at: 'Sun, 15 Mar 2026 11:00:00 GMT' },
      'observed_at must be an ISO 8601 date-time with a time zone',
    ],
    [
      { ip: '198.51.100.1', volume_24h: 1, observed_at: '2026-03-15T12:01:00.001Z' },
      'observed_at is in the future',
    ],
    [
      { ip: '198.51.100.1', volume_24h: 1, observed_at: '2027-01-01T00:00:00Z' },
      'observed_at is in the future',
    ],
    [
      { ip: '198.51.100.1', volume_24h: 1, observed_at: '2026-03-13T11:59:59.999Z' },
      'observed_at is older than 48 hours',
    ],
    [
      { ip: '198.51.100.1', volume_24h: 1, observed_at: '0001-01-01T00:00:00Z' },
      'observed_at is older than 48 hours',
    ],
  ])('%j -> %s', (raw, reason) => {
    expect(validateObservation(raw, 7, NOW)).toBe(`observations[7]: ${reason}`);
  });
});

describe('parseTimestamp', () => {
  it.each([
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2026-12-31T23:59:59Z', Date.UTC(2026, 11, 31, 23, 59, 59)],
    ['2026-01-01T00:00:00+23:59', Date.UTC(2026, 0, 1) - (23 * 60 + 59) * 60_000],
  ])('%s', (text, ms) => {
    expect(parseTimestamp(text)).toBe(ms);
  });

  it.each([
    '2025-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T23:60:00Z',
    '2026-01-01T23:59:60Z',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+0100',
    '2026-01-01 00:00:00Z',
    ' 2026-01-01T00:00:00Z',
    `2026-01-01T00:00:00.${'1'.repeat(40)}Z`,
    '',
  ])('rejects %s', (text) => {
    expect(parseTimestamp(text)).toBeNull();
  });

  it('agrees with Date.parse on every valid generated timestamp', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
        (d) => {
          const text = d.toISOString();
          expect(parseTimestamp(text)).toBe(Date.parse(text));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('validateIngestBody', () => {
  it.each([
    [undefined, 'INVALID_BODY'],
    [null, 'INVALID_BODY'],
    ['observations', 'INVALID_BODY'],
    [[{ ip: '198.51.100.1' }], 'INVALID_BODY'],
    [{}, 'INVALID_BODY'],
    [{ observations: {} }, 'INVALID_BODY'],
    [{ observations: 'x' }, 'INVALID_BODY'],
    [{ observations: [] }, 'INVALID_BODY'],
    [{ observations: Array.from({ length: 101 }, () => ({})) }, 'TOO_MANY_OBSERVATIONS'],
  ])('%j -> %s', (body, code) => {
    let thrown: unknown;
    try {
      validateIngestBody(body);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe(code);
    expect((thrown as AppError).status).toBe(400);
  });

  it('accepts 1 and 100 observations', () => {
    expect(validateIngestBody({ observations: [1] })).toHaveLength(1);
    expect(validateIngestBody({ observations: Array.from({ length: 100 }, () => 1) })).toHaveLength(100);
  });
});

describe('validateIngest: a mix of 100 valid and hostile observations', () => {
  it('accepts exactly the valid ones and explains each rejection by index', () => {
    const hostile: unknown[] = [
      { ip: '1.2.3.4; DROP TABLE telemetry', volume_24h: 1 },
      { ip: '198.51.100.1', bounce_rate: 1e308 },
      { ip: '198.51.100.1', volume_24h: -0.5 },
      { ip: '198.51.100.1', volume_24h: 1, observed_at: `${'9'.repeat(10_000)}` },
      { ip: 'A'.repeat(100_000), volume_24h: 1 },
      { ip: '198.51.100.1', complaint_rate: [0.1] },
      { ip: '198.51.100.1', complaint_rate: { valueOf: 0.1 } },
      [],
      42,
      { ip: '::ffff:198.51.100.1', volume_24h: 1, observed_at: '2026-03-16T12:00:00Z' },
    ];
    const observations: unknown[] = [];
    const validAt: number[] = [];
    for (let i = 0; i < 100; i++) {
      if (i % 10 === 3) {
        observations.push(hostile[(i - 3) / 10]);
      } else {
        validAt.push(i);
        observations.push({
          ip: `198.51.100.${i}`,
          bounce_rate: (i % 7) / 10,
          complaint_rate: i % 2 === 0 ? 0.0005 : undefined,
          volume_24h: i * 100,
          observed_at: new Date(NOW - i * 20 * 60_000 - CLOCK_SKEW_MS * (i % 2)).toISOString(),
        });
      }
    }
    const { observations: accepted, result } = validateIngest({ observations }, NOW);
    expect(result.accepted).toBe(90);
    expect(result.rejected).toBe(10);
    expect(accepted.map((o) => o.ip)).toEqual(validAt.map((i) => `198.51.100.${i}`));
    expect(result.errors.map((e) => e.slice(0, e.indexOf(':')))).toEqual(
      Array.from({ length: 10 }, (_, k) => `observations[${k * 10 + 3}]`),
    );
    for (const e of result.errors) expect(e.length).toBeLessThan(200);
  });

  it('never throws on arbitrary JSON observations and always returns an observation or a reason', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 100 }), (list) => {
        const { observations, result } = validateIngest({ observations: list }, NOW);
        expect(result.accepted + result.rejected).toBe(list.length);
        expect(observations).toHaveLength(result.accepted);
        for (const o of observations) {
          expect(o.observedAt).toBeLessThanOrEqual(NOW);
          expect(o.observedAt).toBeGreaterThanOrEqual(NOW - 48 * HOUR);
        }
      }),
      { numRuns: 200 },
    );
  });
});
