import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quickV6, quickV6Last } from './quick-v6.ts';
import { canonicalizeRow } from './row.ts';

const base = { kind: 'k', source: 's', first_seen: 'a', last_seen: 'b' };

/** What canonicalizeRow gives for a network, in quickV6's shape (head as row.ts keyHead reads the key). */
function slow(network: string) {
  const c = canonicalizeRow({ ...base, network });
  const key = c.key;
  const head =
    2 ** 42 + Number.parseInt(key.slice(1, 11), 16) * 4 + (Number.parseInt(key.charAt(11), 16) >> 2);
  return { network: c.row.network, key, head };
}

/** quickV6's answer with the key and head its record's words and prefix length make. */
function quick(network: string) {
  const text = quickV6(network);
  if (text === null) return null;
  const w = Array.from(quickV6Last.words);
  const key = `6${w.map((x) => x.toString(16).padStart(8, '0')).join('')}${String(quickV6Last.prefixLength).padStart(3, '0')}`;
  const head = 2 ** 42 + (w[0] as number) * 1024 + ((w[1] as number) >>> 22);
  return { network: text, key, head };
}

function readsAsV6(network: string): boolean {
  try {
    return canonicalizeRow({ ...base, network }).family === 6;
  } catch {
    return false;
  }
}

const group = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff }));

/** IPv6 text in many spellings: full, compressed, upper case, padded, with and without a prefix. */
const v6Text = fc
  .tuple(
    fc.array(group, { minLength: 8, maxLength: 8 }),
    fc.boolean(),
    fc.boolean(),
    fc.option(fc.integer({ min: 0, max: 128 })),
  )
  .map(([g, upper, pad, prefix]) => {
    let text = g.map((v) => (pad ? v.toString(16).padStart(4, '0') : v.toString(16))).join(':');
    if (!pad) text = text.replace(/(^|:)0(:0)+(:|$)/, '::');
    if (upper) text = text.toUpperCase();
    return prefix === null ? text : `${text}/${prefix}`;
  });

describe('quickV6', () => {
  it('gives what canonicalizeRow gives for IPv6 networks', () => {
    fc.assert(
      fc.property(v6Text, (text) => {
        // An IPv4-mapped address is IPv4 (or refused, with a prefix under 96): left to canonicalizeRow.
        if (readsAsV6(text)) expect(quick(text)).toEqual(slow(text));
        else expect(quickV6(text)).toBeNull();
      }),
      { numRuns: 5000 },
    );
  });

  it('writes hosts bare, clears host bits and compresses the longest zero run', () => {
    expect(quickV6('2001:DB8:0:0::1')).toBe('2001:db8::1');
    expect(quickV6('2001:db8::1/128')).toBe('2001:db8::1');
    expect(quick('2001:db8::1/32')).toEqual(slow('2001:db8::1/32'));
    expect(quick('::/0')).toEqual(slow('::/0'));
    expect(quick('0:0:1:0:0:1:1:1')).toEqual(slow('0:0:1:0:0:1:1:1'));
  });

  it('leaves IPv4, mapped IPv4 and text parseCidr refuses to canonicalizeRow (null)', () => {
    for (const text of [
      '1.2.3.4',
      '::ffff:10.0.0.1',
      '2001:db8::1/129',
      '2001:db8::1/ 64',
      'x',
      '2001:db8::1/64/1',
    ])
      expect(quickV6(text)).toBeNull();
  });
});
