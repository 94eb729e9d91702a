import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bindNetworks,
  caddyNetworks,
  cidrOf,
  cloudflareExpressions,
  csvNetworks,
  nginxNetworks,
  plainNetworks,
} from '../../test/helpers/feeds-parse.ts';
import { collect, feedContext } from '../../test/helpers/feeds-tools.ts';
import { bytesToIp, parseCidr } from '../core/ip.ts';
import { encodeCanonicalRows, encodeFeed } from './encode.ts';
import { canonicalizeRow } from './row.ts';
import { FEED_FORMATS, type FeedFormat, type FeedRow } from './types.ts';

const v4 = fc
  .tuple(
    fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }),
    fc.integer({ min: 0, max: 33 }),
  )
  .map(([b, p]) => (p === 33 ? bytesToIp(b) : `${bytesToIp(b)}/${p}`));
// Few distinct 16-bit words, so zero runs (zz compression) and duplicates are common.
const v6 = fc
  .tuple(
    fc.array(fc.constantFrom(0, 0, 0, 1, 0xdb8, 0x2001, 0xffff), { minLength: 8, maxLength: 8 }),
    fc.integer({ min: 0, max: 129 }),
  )
  .map(([w, p]) => {
    const bytes = w.flatMap((x) => [x >> 8, x & 255]);
    return p === 129 ? bytesToIp(bytes) : `${bytesToIp(bytes)}/${p}`;
  })
  // ::ffff:a.b.c.d/n with n < 96 has no IPv4 meaning; parseCidr rejects it (row.test.ts covers rejection).
  .filter((network) => parseCidr(network) !== null);
const rowArb = fc.record({
  network: fc.oneof(v4, v6),
  kind: fc.constantFrom('tor_exit', 'vpn', 'a,"b"'),
  source: fc.string({ minLength: 1, maxLength: 8 }),
  first_seen: fc.constantFrom('2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'),
  last_seen: fc.constantFrom('2026-01-03T00:00:00Z', '2026-01-04T00:00:00Z'),
});

const READERS: Partial<Record<FeedFormat, (text: string) => string[]>> = {
  csv: csvNetworks,
  plain: plainNetworks,
  nginx: nginxNetworks,
  caddy: caddyNetworks,
  bind: bindNetworks,
  cloudflare: (t) => cloudflareExpressions(t).flat(),
};

async function encodeAll(rows: FeedRow[]): Promise<Record<FeedFormat, string>> {
  const out = {} as Record<FeedFormat, string>;
  for (const format of FEED_FORMATS)
    out[format] = (await collect(encodeFeed(format, rows, feedContext('tor_exits')))).join('');
  return out;
}

describe('encodeFeed (property)', () => {
  it('encodes any mix of IPv4/IPv6 addresses and CIDRs deterministically, whatever the input order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowArb, { maxLength: 40 }),
        fc.integer({ min: 0, max: 39 }),
        async (rows, cut) => {
          const rotated = [...rows.slice(cut), ...rows.slice(0, cut)].reverse();
          expect(await encodeAll(rotated)).toEqual(await encodeAll(rows));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('every format carries exactly the distinct networks, in canonical order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rowArb, { maxLength: 40 }), async (rows) => {
        const expected = [...new Set(rows.map((r) => parseCidr(r.network)?.cidr as string))];
        const encoded = await encodeAll(rows);
        for (const [format, read] of Object.entries(READERS)) {
          const got = (read as (t: string) => string[])(encoded[format as FeedFormat]);
          expect(got.length, format).toBe(expected.length);
          expect(new Set(got), format).toEqual(new Set(expected));
        }
        const json = JSON.parse(encoded.json) as FeedRow[];
        expect(new Set(json.map((r) => cidrOf(r.network)))).toEqual(new Set(expected));
      }),
      { numRuns: 60 },
    );
  });

  it('refuses rows that are out of canonical order or duplicated', async () => {
    const a = canonicalizeRow({
      network: '10.0.0.2',
      kind: 'k',
      source: 's',
      first_seen: 'f',
      last_seen: 'l',
    });
    const b = canonicalizeRow({
      network: '10.0.0.1',
      kind: 'k',
      source: 's',
      first_seen: 'f',
      last_seen: 'l',
    });
    await expect(collect(encodeCanonicalRows('plain', [a, b], feedContext('tor_exits')))).rejects.toThrow(
      /canonical order/,
    );
    await expect(collect(encodeCanonicalRows('bind', [b, b], feedContext('tor_exits')))).rejects.toThrow(
      /canonical order/,
    );
  });
});
