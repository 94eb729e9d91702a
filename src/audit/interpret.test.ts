/** The acceptance gate of CONTRACT §10 at its thresholds, without a store. */
import { describe, expect, it } from 'vitest';
import { interpret, type ObservationFact } from './interpret.ts';

const OWN = 'bl.own.test';
const OTHER = 'other.test';

/** `n` addresses probed on both zones and by FCrDNS; `listed` on `zone`, `errors` DNSBL errors on OTHER. */
function facts(n: number, opts: { listedOn?: string; listed?: number; errors?: number }): ObservationFact[] {
  const out: ObservationFact[] = [];
  for (let i = 0; i < n; i++) {
    const address = `192.0.2.${i}`;
    for (const zone of [OWN, OTHER]) {
      let outcome = 'not_listed';
      if (zone === opts.listedOn && i < (opts.listed ?? 0)) outcome = 'listed';
      if (zone === OTHER && i >= n - (opts.errors ?? 0)) outcome = 'error';
      out.push({ address, kind: 'dnsbl', sourceKey: zone, outcome });
    }
    out.push({ address, kind: 'fcrdns', sourceKey: 'fcrdns', outcome: 'pass' });
  }
  return out;
}

const gate = (n: number, o: Parameters<typeof facts>[1]) =>
  interpret({
    addresses: n,
    ownZone: OWN,
    zones: [OWN, OTHER],
    observations: facts(n, o),
    acceptance: true,
    partial: false,
  }).acceptance?.gate;

describe('interpret', () => {
  it('passes a clean job and counts per zone', () => {
    const r = interpret({
      addresses: 4,
      ownZone: OWN,
      zones: [OWN, OTHER],
      observations: facts(4, {}),
      acceptance: true,
      partial: false,
    });
    expect(r.zones[OWN]).toEqual({ listed: 0, not_listed: 4, error: 0, timeout: 0 });
    expect(r.fcrdns).toEqual({ pass: 4, fail: 0, unknown: 0 });
    expect(r.acceptance?.gate).toBe('pass');
  });

  it('fails on any listing on the own zone', () => {
    expect(gate(100, { listedOn: OWN, listed: 1 })).toBe('fail');
  });

  it('reviews up to 5 % listed elsewhere and fails above it', () => {
    expect(gate(100, { listedOn: OTHER, listed: 5 })).toBe('review');
    expect(gate(100, { listedOn: OTHER, listed: 6 })).toBe('fail');
  });

  it('reviews when over 2 % of probes errored', () => {
    // 100 addresses × 3 probes = 300; 6 errors = 2 %, 7 > 2 %.
    expect(gate(100, { errors: 6 })).toBe('pass');
    expect(gate(100, { errors: 7 })).toBe('review');
  });

  it('has no gate without acceptance', () => {
    const r = interpret({
      addresses: 1,
      ownZone: OWN,
      zones: [OWN],
      observations: [],
      acceptance: false,
      partial: false,
    });
    expect(r.acceptance).toBeUndefined();
  });
});
