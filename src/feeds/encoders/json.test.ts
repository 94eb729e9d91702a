import { describe, expect, it } from 'vitest';
import { encodeToString, feedContext, realCanonicalRows } from '../../../test/helpers/feeds-tools.ts';
import { canonicalizeRow } from '../row.ts';
import type { FeedRow } from '../types.ts';

describe('json encoder', () => {
  it('is a JSON array of the rows, with escaping, brand only on ai_crawlers and asn where known', async () => {
    const input: FeedRow[] = [
      {
        network: '10.0.0.1',
        kind: 'quote " back \\ nl \n',
        source: 'ctl \u0001 \u2028',
        first_seen: 'f',
        last_seen: 'l',
        brand: 'X',
        asn: 64500,
      },
      { network: '2001:db8::/32', kind: 'k', source: 's', first_seen: 'f', last_seen: 'l', brand: 'Y' },
    ];
    const rows = input.map(canonicalizeRow);
    expect(JSON.parse(await encodeToString('json', rows, feedContext('ai_crawlers')))).toEqual(input);
    const noBrand = JSON.parse(await encodeToString('json', rows, feedContext('tor_exits'))) as FeedRow[];
    expect(noBrand.map((r) => r.brand)).toEqual([undefined, undefined]);
    expect(noBrand[0]?.asn).toBe(64500);
    expect(JSON.parse(await encodeToString('json', [], feedContext('tor_exits')))).toEqual([]);
  });

  it('holds every real vpn_proxy row in canonical order', async () => {
    const rows = await realCanonicalRows('vpn_proxy');
    const parsed = JSON.parse(await encodeToString('json', rows, feedContext('vpn_proxy'))) as FeedRow[];
    expect(parsed).toEqual(rows.map((c) => c.row));
  });
});
