import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeIp } from '../core/ip.ts';
import { canonicalZone, classifyQueryName, ipToQueryName, targetIp } from './query-name.ts';

const ZONE = 'bl.netrep.test';

describe('RFC 5782 query names', () => {
  it('round-trips every IPv4 and IPv6 address through its query name', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (ip) => {
        const name = ipToQueryName(ip, ZONE) as string;
        const t = classifyQueryName(name.toUpperCase(), ZONE);
        expect(t.kind === 'ipv4' || t.kind === 'ipv6').toBe(true);
        if (t.kind === 'ipv4' || t.kind === 'ipv6') expect(targetIp(t)).toBe(normalizeIp(ip));
      }),
      { numRuns: 2000, seed: 7 },
    );
  });

  it('classifies the apex, outside names and non-address names', () => {
    expect(classifyQueryName('BL.netrep.test.', ZONE)).toEqual({ kind: 'apex' });
    expect(classifyQueryName('example.com', ZONE)).toEqual({ kind: 'outside' });
    expect(classifyQueryName('xbl.netrep.test', ZONE)).toEqual({ kind: 'outside' });
    for (const n of ['1.2.3', '1.2.3.4.5', '01.2.3.4', '256.1.1.1', 'a.b.c.d', '-1.2.3.4']) {
      expect(classifyQueryName(`${n}.${ZONE}`, ZONE), n).toEqual({ kind: 'none' });
    }
    expect(classifyQueryName(`${'g.'.repeat(32)}${ZONE}`, ZONE)).toEqual({ kind: 'none' });
  });

  it('reads an IPv4-mapped nibble name as the IPv4 address (RFC 5782 §5 IPv6 test entry)', () => {
    const t = classifyQueryName(`2.0.0.0.0.0.f.7.f.f.f.f.${'0.'.repeat(20)}${ZONE}`, ZONE);
    expect(t).toEqual({ kind: 'ipv4', int: 0x7f000002 });
  });

  it('rejects empty and malformed zones', () => {
    expect(canonicalZone('BL.Example.ORG.')).toBe('bl.example.org');
    for (const bad of ['', '.', 'a..b', `${'x'.repeat(64)}.org`])
      expect(() => canonicalZone(bad), bad).toThrow();
  });
});
