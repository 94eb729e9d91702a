/** The evidence deadline: every failure or a slow read is 503 EVIDENCE_UNAVAILABLE, never a score. */
import { describe, expect, it } from 'vitest';
import { AppError } from '../core/errors.ts';
import { anchorOf, fcrdnsStatus, parseOrThrow, readEvidence } from './assess-parts.ts';

describe('readEvidence', () => {
  it('answers what the read answers in time', async () => {
    await expect(readEvidence(1000, async () => 42)).resolves.toBe(42);
  });

  it('turns a slow read into EVIDENCE_UNAVAILABLE', async () => {
    const slow = new Promise<number>((resolve) => setTimeout(() => resolve(1), 500));
    await expect(readEvidence(20, () => slow)).rejects.toMatchObject({ code: 'EVIDENCE_UNAVAILABLE' });
  });

  it('turns a store failure into EVIDENCE_UNAVAILABLE with the cause kept, and lets AppErrors through', async () => {
    const lost = new Error('connection lost');
    const err = await readEvidence(1000, async () => {
      throw lost;
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'EVIDENCE_UNAVAILABLE', cause: lost });
    await expect(
      readEvidence(1000, async () => {
        throw new AppError('INVALID_IP', 'no');
      }),
    ).rejects.toMatchObject({ code: 'INVALID_IP' });
  });
});

describe('small parts', () => {
  it('parseOrThrow names the field of a bad address', () => {
    expect(parseOrThrow('2001:DB8::1').address).toBe('2001:db8::1');
    expect(() => parseOrThrow('1.2.3', 'ips[4]')).toThrow(/ips\[4\] "1\.2\.3"/);
  });

  it('fcrdnsStatus and the age anchor', () => {
    expect(fcrdnsStatus(null)).toBe('unknown');
    const rec = {
      ip: '192.0.2.1',
      ptrHostname: 'a.example',
      forwardIps: [],
      lastCheckedAt: 1,
      lastObservedAt: null,
    };
    expect(fcrdnsStatus({ ...rec, forwardMatch: true })).toBe('pass');
    expect(fcrdnsStatus({ ...rec, forwardMatch: false })).toBe('fail');
    const facts = { latest: null, firstSending: null, earliest: null };
    expect(anchorOf(null, facts)).toBeNull();
    expect(anchorOf(500, facts)).toBe(500);
  });
});
