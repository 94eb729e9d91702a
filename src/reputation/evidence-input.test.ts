import { describe, expect, it } from 'vitest';
import { AppError } from '../core/errors.ts';
import { oldestEvidenceTime, validateEvidenceBody, validateEvidenceEvent } from './evidence-input.ts';

const NOW = Date.parse('2026-03-15T12:00:00Z');
const ok = { ip: '198.51.100.9', kind: 'pristine_trap', observed_at: '2026-03-01T00:00:00Z' };

describe('validateEvidenceEvent', () => {
  it('accepts a full event and normalizes the IP', () => {
    expect(
      validateEvidenceEvent(
        { ...ok, ip: '::FFFF:198.51.100.9', synthetic: true, source: 'trap-net-3' },
        0,
        NOW,
      ),
    ).toEqual({
      ip: '198.51.100.9',
      kind: 'pristine_trap',
      observedAt: Date.parse('2026-03-01T00:00:00Z'),
      synthetic: true,
      source: 'trap-net-3',
    });
  });

  it.each(['pristine_trap', 'recycled_trap', 'typo_trap', 'smtp_honeypot'])('accepts kind %s', (kind) => {
    expect(validateEvidenceEvent({ ...ok, kind }, 0, NOW)).toMatchObject({
      kind,
      synthetic: false,
      source: null,
    });
  });

  it('accepts exactly 10 years back and stores a time within the clock skew as now', () => {
    expect(validateEvidenceEvent({ ...ok, observed_at: '2016-03-15T12:00:00Z' }, 0, NOW)).toMatchObject({
      observedAt: oldestEvidenceTime(NOW),
    });
    expect(validateEvidenceEvent({ ...ok, observed_at: '2026-03-15T12:00:30Z' }, 0, NOW)).toMatchObject({
      observedAt: NOW,
    });
  });

  it.each([
    [null, 'event must be an object'],
    [[ok], 'event must be an object'],
    [{ ...ok, ip: undefined }, 'ip is missing or not a valid IP address'],
    [{ ...ok, ip: '1.2.3.4.5' }, 'ip is missing or not a valid IP address'],
    [
      { ...ok, kind: 'spam_trap' },
      'kind must be one of pristine_trap, recycled_trap, typo_trap, smtp_honeypot',
    ],
    [
      { ...ok, kind: 'toString' },
      'kind must be one of pristine_trap, recycled_trap, typo_trap, smtp_honeypot',
    ],
    [{ ...ok, observed_at: undefined }, 'observed_at is required (ISO 8601 date-time)'],
    [{ ...ok, observed_at: '2026-03-01' }, 'observed_at must be an ISO 8601 date-time with a time zone'],
    [{ ...ok, observed_at: '2026-03-15T12:01:00.001Z' }, 'observed_at is in the future'],
    [{ ...ok, observed_at: '2016-03-15T11:59:59.999Z' }, 'observed_at is more than 10 years old'],
    [{ ...ok, synthetic: 'true' }, 'synthetic must be a boolean'],
    [{ ...ok, source: 5 }, 'source must be a string of at most 128 characters'],
    [{ ...ok, source: 'x'.repeat(129) }, 'source must be a string of at most 128 characters'],
  ])('%j -> %s', (raw, reason) => {
    expect(validateEvidenceEvent(raw, 4, NOW)).toBe(`events[4]: ${reason}`);
  });
});

describe('validateEvidenceBody', () => {
  it.each([
    null,
    [],
    {},
    { events: [] },
    { events: 'x' },
    { events: Array.from({ length: 1001 }, () => ok) },
  ])('%j is INVALID_BODY', (body) => {
    expect(() => validateEvidenceBody(body)).toThrowError(AppError);
    try {
      validateEvidenceBody(body);
    } catch (err) {
      expect((err as AppError).code).toBe('INVALID_BODY');
    }
  });

  it('accepts 1 and 1000 events', () => {
    expect(validateEvidenceBody({ events: [ok] })).toHaveLength(1);
    expect(validateEvidenceBody({ events: Array.from({ length: 1000 }, () => ok) })).toHaveLength(1000);
  });
});
