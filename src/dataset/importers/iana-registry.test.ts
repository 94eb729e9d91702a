import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { parseIanaRegistry } from './iana-registry.ts';

describe('IANA registries', () => {
  it('reads the IPv4 address space with zero-padded prefixes and multi-line notes', () => {
    const r = parseIanaRegistry(readFileSync(sharedDataPath('iana/ipv4-address-space.csv')));
    expect(r.rejected).toEqual([]);
    expect(r.rows).toHaveLength(256);
    expect(r.rows[8]).toMatchObject({
      start: 0x08000000n,
      prefixLength: 8,
      designation: 'Administered by ARIN',
      rir: 'ARIN',
    });
  });

  it('reads IPv6 unicast assignments', () => {
    const r = parseIanaRegistry(readFileSync(sharedDataPath('iana/ipv6-unicast-address-assignments.csv')));
    expect(r.rows).toHaveLength(50);
    expect(r.rows.every((x) => x.family === 6)).toBe(true);
  });

  it('rejects bad prefixes and a missing header', () => {
    const r = parseIanaRegistry(
      'Prefix,Designation,Date,WHOIS,RDAP,Status [1],Note\n999/8,X,,,,LEGACY,\n"010/8","IANA - Private Use","1995-06",,,"RESERVED","multi\nline"\n',
    );
    expect(r.rows.map((x) => x.status)).toEqual(['RESERVED']);
    expect(r.rejected.map((x) => x.reason)).toEqual(['invalid prefix']);
    expect(parseIanaRegistry('a,b\n1,2\n').rejected[0]?.reason).toBe('missing Prefix/Designation header');
    expect(parseIanaRegistry('"unterminated\n').rejected[0]?.reason).toMatch(/^CSV error/);
  });
});
