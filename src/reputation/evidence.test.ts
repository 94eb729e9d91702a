import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../core/clock.ts';
import { deriveEvidence, type EvidenceFacts, type TelemetryRow } from './evidence.ts';

const NOW = Date.parse('2026-03-15T12:00:00Z');
const ago = (days: number) => NOW - days * DAY_MS;

function facts(over: Partial<EvidenceFacts> = {}): EvidenceFacts {
  return {
    ip: '198.51.100.7',
    activeListing: null,
    listedEvents: [],
    evidence: [],
    telemetry: [],
    geoChangeCount: null,
    fcrdns: 'unknown',
    datacenter: null,
    subnetActiveListings: 0,
    ...over,
  };
}

const row = (days: number, over: Partial<TelemetryRow> = {}): TelemetryRow => ({
  observedAt: ago(days),
  bounceRate: 0.01,
  complaintRate: 0,
  volume24h: 100,
  synthetic: false,
  ...over,
});

describe('deriveEvidence', () => {
  it('sorts production evidence by kind and drops synthetic events everywhere', () => {
    const r = deriveEvidence(
      facts({
        evidence: [
          { kind: 'pristine_trap', observedAt: ago(1), synthetic: false },
          { kind: 'pristine_trap', observedAt: ago(2), synthetic: true },
          { kind: 'recycled_trap', observedAt: ago(3), synthetic: false },
          { kind: 'typo_trap', observedAt: ago(4), synthetic: false },
          { kind: 'smtp_honeypot', observedAt: ago(5), synthetic: false },
          { kind: 'smtp_honeypot', observedAt: ago(900), synthetic: true },
        ],
      }),
    );
    expect(r.trapHits).toEqual({ pristine: [ago(1)], recycled: [ago(3)], typo: [ago(4)] });
    expect(r.honeypotEvents).toEqual([ago(5)]);
    expect(r.firstObservedAt).toBe(ago(5));
  });

  it('anchors age at the earliest production observation of any kind', () => {
    const r = deriveEvidence(
      facts({
        evidence: [{ kind: 'typo_trap', observedAt: ago(40), synthetic: false }],
        telemetry: [row(1), row(100), row(500, { synthetic: true })],
      }),
    );
    expect(r.firstObservedAt).toBe(ago(100));
  });

  it('has no anchor and no telemetry when everything is synthetic', () => {
    const r = deriveEvidence(
      facts({
        evidence: [{ kind: 'pristine_trap', observedAt: ago(1), synthetic: true }],
        telemetry: [row(1, { synthetic: true })],
      }),
    );
    expect(r.firstObservedAt).toBeNull();
    expect(r.telemetry).toBeNull();
    expect(r.trapHits.pristine).toEqual([]);
  });

  it('takes the most recent production telemetry, whatever the row order; a synthetic newer row is skipped', () => {
    const r = deriveEvidence(
      facts({
        telemetry: [
          row(0.5, { bounceRate: 0.3 }),
          row(0.1, { bounceRate: 0.9, synthetic: true }),
          row(1, { bounceRate: 0.02 }),
        ],
      }),
    );
    expect(r.telemetry).toEqual({ bounceRate: 0.3, complaintRate: 0, volume24h: 100, observedAt: ago(0.5) });
  });

  it('on equal observation times the row written last wins', () => {
    const r = deriveEvidence(
      facts({ telemetry: [row(1, { bounceRate: 0.1 }), row(1, { bounceRate: 0.2 })] }),
    );
    expect(r.telemetry?.bounceRate).toBe(0.2);
  });

  it('passes dataset and listing facts through unchanged', () => {
    const f = facts({
      activeListing: 'phishing',
      listedEvents: [ago(3)],
      geoChangeCount: 2,
      fcrdns: 'fail',
      datacenter: true,
      subnetActiveListings: null,
    });
    const r = deriveEvidence(f);
    expect(r).toMatchObject({
      activeListing: 'phishing',
      listedEvents: [ago(3)],
      geoChangeCount: 2,
      fcrdns: 'fail',
      datacenter: true,
      subnetActiveListings: null,
    });
    expect(r.listedEvents).not.toBe(f.listedEvents);
  });
});
