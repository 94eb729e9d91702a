import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { parseCaidaAsClass } from './as-class.ts';

describe('CAIDA AS classification', () => {
  it('reads the 2021-04-01 file: 71,665 ASes in the three classes of SOURCES.md §5c', () => {
    const r = parseCaidaAsClass(readFileSync(sharedDataPath('asn-class/caida/20210401.as2types.txt')));
    expect(r.rejected).toEqual([]);
    expect(r.rows).toHaveLength(71_665);
    const count = (c: string) => r.rows.filter((x) => x.class === c).length;
    expect([count('transit_access'), count('enterprise'), count('content')]).toEqual([46_390, 20_942, 4_333]);
    const byAsn = new Map(r.rows.map((x) => [x.asn, x]));
    expect(byAsn.get(54815)).toEqual({ asn: 54815, class: 'enterprise', basis: 'caida' });
    expect(byAsn.get(24940)).toEqual({ asn: 24940, class: 'content', basis: 'peeringdb' });
    expect(byAsn.get(7922)).toEqual({ asn: 7922, class: 'transit_access', basis: 'peeringdb' });
  });

  it('skips comments, refuses bad lines with reasons', () => {
    const r = parseCaidaAsClass(
      '# format: as|source|type\n1|CAIDA_class|Enterprise\n1|CAIDA_class|Content\n2|CAIDA_class|Other\nx|CAIDA_class|Content\n3|manual_class|Transit/Access|x\n4|manual_class|Transit/Access\n',
    );
    expect(r.rows).toEqual([
      { asn: 1, class: 'enterprise', basis: 'caida' },
      { asn: 4, class: 'transit_access', basis: 'manual' },
    ]);
    expect(r.rejected.map((x) => x.reason)).toEqual([
      'duplicate ASN',
      'unknown class or source',
      'not `as|source|type`',
      'not `as|source|type`',
    ]);
  });
});
