import { describe, expect, it } from 'vitest';
import { csvNetworks, csvRecords } from '../../../test/helpers/feeds-parse.ts';
import { encodeToString, feedContext, realCanonicalRows } from '../../../test/helpers/feeds-tools.ts';
import { csvField } from '../../core/csv.ts';
import { canonicalizeRow } from '../row.ts';

describe('csv encoder', () => {
  it('quotes commas, quotes and line breaks (RFC 4180) so a CSV parser reads the values back', async () => {
    const hostile = ['a,b', 'say "hi"', 'line\nbreak', 'cr\r\nlf', '=cmd()', ' spaced ', 'ünïcode ✓'];
    const rows = hostile.map((kind, i) =>
      canonicalizeRow({
        network: `10.0.0.${i}`,
        kind,
        source: kind,
        first_seen: 'f',
        last_seen: 'l',
        brand: kind,
        asn: i,
      }),
    );
    const text = await encodeToString('csv', rows, feedContext('ai_crawlers'));
    const back = csvRecords(text);
    expect(back.map((r) => [r.kind, r.source, r.brand, r.asn])).toEqual(
      hostile.map((h, i) => [h, h, h, String(i)]),
    );
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a"b')).toBe('"a""b"');
  });

  it('has brand only on ai_crawlers and an empty asn when unknown', async () => {
    const rows = await realCanonicalRows('ai_crawlers');
    const text = await encodeToString('csv', rows, feedContext('ai_crawlers'));
    expect(text.split('\n')[0]).toBe('network,kind,source,first_seen,last_seen,brand,asn');
    const recs = csvRecords(text);
    expect(new Set(recs.map((r) => r.brand))).toEqual(
      new Set(['Apple', 'Microsoft', 'Google', 'OpenAI', 'Perplexity', 'DuckDuckGo']),
    );
    const tor = await encodeToString('csv', await realCanonicalRows('tor_exits'), feedContext('tor_exits'));
    expect(tor.split('\n')[0]).toBe('network,kind,source,first_seen,last_seen,asn');
    expect(csvRecords(tor).every((r) => r.asn === '')).toBe(true);
  });

  it('round-trips the real datacenter feed network by network', async () => {
    const rows = await realCanonicalRows('datacenter_ranges');
    const text = await encodeToString('csv', rows, feedContext('datacenter_ranges'));
    expect(csvNetworks(text)).toEqual(rows.map((c) => `${c.address}/${c.prefixLength}`));
  });
});
