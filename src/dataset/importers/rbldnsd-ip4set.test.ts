import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { parseIp4SetZone } from './rbldnsd-ip4set.ts';

describe('rbldnsd ip4set zones', () => {
  it('reads UCEPROTECT level 1 (Latin-1 banner, exclusions, test record skipped)', () => {
    const bytes = readFileSync(sharedDataPath('dnsbl/uceprotect/dnsbl-1.uceprotect.net'));
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    const z = parseIp4SetZone(bytes);
    expect(z.rejected).toEqual([]);
    expect(z.soaSerial).toBe(2026070618);
    expect(z.rows.length).toBe(50294 - 1);
    expect(z.rows.some((r) => r.start === 0x7f000002n)).toBe(false);
    expect(z.exclusions.length).toBe(4);
  });

  it('reads UCEPROTECT level 2 ranges with their text', () => {
    const z = parseIp4SetZone(readFileSync(sharedDataPath('dnsbl/uceprotect/dnsbl-2.uceprotect.net')));
    expect(z.rows.length).toBeGreaterThan(7000);
    expect(z.rows[0]?.text ?? '').toMatch(/UCEPROTECT-Level2/);
    expect(z.exclusions.length).toBeGreaterThan(10_000);
  });

  it('rejects hostile entries', () => {
    const z = parseIp4SetZone(
      Buffer.from(
        '# \xa9 banner\n$SOA 3600 a b 7 1 1 1 1\n:127.0.0.2:x\n1.2.3.4\n1.2.3.4\n1.2.3.999\n!1.2.3.5\n5.6.7.0/24 text here\n',
        'latin1',
      ),
    );
    expect(z.rows.map((r) => [r.prefixLength, r.text])).toEqual([
      [32, null],
      [24, 'text here'],
    ]);
    expect(z.rejected.map((r) => r.reason)).toEqual(['duplicate entry', 'invalid address or CIDR']);
    expect(z.soaSerial).toBe(7);
  });
});
