import { describe, expect, it } from 'vitest';
import { CURATED_ASNS, classifyByName } from './asn-classes.ts';

describe('curated ASN classification', () => {
  it('is sorted, in range, and names a provider for every hosting entry', () => {
    const asns = [...CURATED_ASNS.keys()];
    expect(asns).toEqual([...asns].sort((a, b) => a - b));
    for (const [asn, c] of CURATED_ASNS) {
      expect(asn).toBeGreaterThan(0);
      expect(asn).toBeLessThan(4294967296);
      if (c.kind === 'hosting') expect(c.provider, `AS${asn}`).toBeTruthy();
    }
    expect(CURATED_ASNS.get(15169)).toEqual({ kind: 'hosting', provider: 'Google' });
  });

  it('name heuristics', () => {
    expect(classifyByName('Massachusetts Institute of Technology')).toBe('education');
    expect(classifyByName('University of Tokyo')).toBe('education');
    expect(classifyByName('T-Mobile USA, Inc.')).toBe('mobile');
    expect(classifyByName('Hetzner Online GmbH - Cloud')).toBe('hosting');
    expect(classifyByName('Deutsche Telekom AG')).toBeNull();
  });
});
