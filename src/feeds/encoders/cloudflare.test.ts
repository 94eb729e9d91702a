import { describe, expect, it } from 'vitest';
import { cloudflareExpressions } from '../../../test/helpers/feeds-parse.ts';
import { encodeToString, feedContext, realCanonicalRows } from '../../../test/helpers/feeds-tools.ts';
import { canonicalizeRow } from '../row.ts';
import { FEED_NAMES } from '../types.ts';
import { CLOUDFLARE_MAX_EXPRESSION } from './cloudflare.ts';

const row = (network: string) =>
  canonicalizeRow({ network, kind: 'k', source: 's', first_seen: 'a', last_seen: 'b' });

describe('cloudflare encoder', () => {
  it.each(FEED_NAMES)(
    'every expression of the real %s feed parses and stays under 4096 characters',
    async (feed) => {
      const rows = await realCanonicalRows(feed);
      const text = await encodeToString('cloudflare', rows, feedContext(feed));
      const expressions = cloudflareExpressions(text);
      expect(expressions.flat()).toEqual(rows.map((c) => `${c.address}/${c.prefixLength}`));
      for (const line of text.split('\n').filter(Boolean)) expect(line.length).toBeLessThan(4096);
      if (rows.length > 1000) expect(expressions.length).toBeGreaterThan(1);
    },
  );

  it('packs long IPv6 tokens up to the limit and no further', async () => {
    const rows = [];
    for (let i = 0; i < 400; i++) rows.push(row(`2001:db8:ffff:${i.toString(16)}:ffff:ffff:ffff:ffff`));
    rows.sort((a, b) => (a.key < b.key ? -1 : 1));
    const text = await encodeToString('cloudflare', rows, feedContext('tor_exits'));
    const lines = text.split('\n').filter(Boolean);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(CLOUDFLARE_MAX_EXPRESSION);
    // Greedy packing: adding the next token to any expression would have crossed the limit.
    for (let i = 0; i + 1 < lines.length; i++) {
      const next = cloudflareExpressions(lines[i + 1] as string)[0]?.[0] ?? '';
      expect((lines[i] as string).length + 1 + next.replace('/128', '').length).toBeGreaterThan(
        CLOUDFLARE_MAX_EXPRESSION,
      );
    }
    expect(cloudflareExpressions(text).flat()).toHaveLength(400);
  });

  it('the parser check is real: it rejects malformed and oversized expressions; an empty feed is empty', async () => {
    expect(() => cloudflareExpressions('(ip.src in {1.2.3.4 })\n')).toThrow();
    expect(() => cloudflareExpressions('(ip.src in {1.2.3.4}\n')).toThrow();
    expect(() => cloudflareExpressions('(ip.src in {10.0.0.1/8})\n')).toThrow();
    expect(() => cloudflareExpressions(`(ip.src in {${'1.2.3.4 '.repeat(600)}1.2.3.4})\n`)).toThrow(
      /characters/,
    );
    expect(await encodeToString('cloudflare', [], feedContext('tor_exits'))).toBe('');
  });
});
