import { describe, expect, it } from 'vitest';
import { plainNetworks } from '../../../test/helpers/feeds-parse.ts';
import { encodeToString, feedContext, realCanonicalRows } from '../../../test/helpers/feeds-tools.ts';

describe('plain encoder', () => {
  it('writes one network per line, bare addresses for hosts, IPv4 before IPv6', async () => {
    const rows = await realCanonicalRows('tor_exits');
    const text = await encodeToString('plain', rows, feedContext('tor_exits'));
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toEqual(rows.map((c) => c.row.network));
    expect(lines.every((l) => !l.endsWith('/32') && !l.endsWith('/128'))).toBe(true);
    const firstV6 = lines.findIndex((l) => l.includes(':'));
    expect(firstV6).toBeGreaterThan(0);
    expect(lines.slice(firstV6).every((l) => l.includes(':'))).toBe(true);
    expect(plainNetworks(text)).toHaveLength(rows.length);
  });
});
