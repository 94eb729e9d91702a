import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { parseRirDelegated } from './rir-delegated.ts';

const read = (p: string) => readFileSync(sharedDataPath('rir', p));

describe('RIR delegated statistics', () => {
  it('AFRINIC extended whole file (00000000 startdate header)', () => {
    const r = parseRirDelegated(read('delegated-afrinic-extended-20260505'));
    expect(r.registry).toBe('AFRINIC');
    expect(r.serial).toBe('20260505');
    expect(r.rejected).toEqual([]);
    expect(r.rows.length + r.asns.length).toBe(19286);
    expect(r.asns[0]).toEqual({
      rir: 'AFRINIC',
      firstAsn: 1228,
      count: 1,
      country: 'ZA',
      date: '1991-03-01',
      status: 'allocated',
    });
  });

  it('APNIC non-extended with # comment block, LACNIC reserved rows without country, the 2019 subsets', () => {
    const apnic = parseRirDelegated(read('delegated-apnic-20210715'));
    expect(apnic.registry).toBe('APNIC');
    expect(apnic.rows.length + apnic.asns.length).toBe(69826);
    const lacnic = parseRirDelegated(read('delegated-lacnic-extended-20181012'));
    expect(lacnic.rows.some((x) => x.country === null && x.status === 'reserved')).toBe(true);
    for (const name of ['arin', 'ripencc', 'apnic', 'lacnic', 'afrinic']) {
      const s = parseRirDelegated(read(`subsets-2019/delegated-${name}-extended-subset`));
      expect(s.rejected, name).toEqual([]);
      expect(s.rows.length + s.asns.length, name).toBe(300);
    }
  });

  it('IPv4 counts that are not powers of two make exact ranges; hostile rows are rejected', () => {
    const r = parseRirDelegated(
      [
        '2|arin|1|5|19700101|20190101|-0500',
        'arin|*|ipv4|*|3|summary',
        'arin|US|ipv4|8.0.0.0|768|19921201|allocated|x',
        'arin|US|ipv4|255.255.255.0|512|19921201|allocated', // runs past the space
        'arin|US|ipv6|2001:db8::1|32|20000101|allocated', // host bits
        'arin|US|ipv6|2001:db8::|200|20000101|allocated',
        'arin|US|ipv4|1.2.3',
        'arin|US|asn|x|1|20000101|allocated',
        'nope|US|ipv4|1.0.0.0|256|20000101|allocated',
        'arin|US|asn|15169|1|20000330|assigned',
      ].join('\n'),
    );
    expect(r.rows).toEqual([
      {
        family: 4,
        start: 0x08000000n,
        end: 0x080002ffn,
        rir: 'ARIN',
        country: 'US',
        date: '1992-12-01',
        status: 'allocated',
      },
    ]);
    expect(r.asns).toHaveLength(1);
    expect(r.rejected.map((x) => x.reason)).toEqual([
      'range runs past the address space',
      'host bits set below the prefix',
      'invalid prefix length',
      'expected at least 7 fields, got 4',
      'invalid ASN',
      'unknown registry',
    ]);
  });
});
