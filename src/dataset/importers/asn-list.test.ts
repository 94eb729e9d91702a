import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { parseAsnList } from './asn-list.ts';

describe('ASN lists', () => {
  it('reads the X4BNet datacenter and VPN ASN inputs', () => {
    const dc = parseAsnList(readFileSync(sharedDataPath('vpn-datacenter/x4bnet/input-datacenter-ASN.txt')));
    expect(dc.rows[0]).toEqual({
      asn: 45090,
      comment: 'Tencent cloud computing, they dont really monitor their network',
    });
    expect(dc.rows.length + dc.rejected.length).toBeGreaterThan(800);
    expect(
      parseAsnList(readFileSync(sharedDataPath('vpn-datacenter/x4bnet/input-vpn-ASN.txt'))).rows.length,
    ).toBeGreaterThan(10);
  });

  it('rejects hostile lines', () => {
    const r = parseAsnList('AS1 # a\nAS1\nASX\n0\n99999999999\n7');
    expect(r.rows.map((x) => x.asn)).toEqual([1, 7]);
    expect(r.rejected.map((x) => x.reason)).toEqual([
      'duplicate ASN',
      'invalid ASN',
      'invalid ASN',
      'invalid ASN',
    ]);
  });
});
