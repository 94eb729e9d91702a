import { TypeCompiler } from '@sinclair/typebox/compiler';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFeedRow } from './row-check.ts';
import { FeedRowSchema } from './types.ts';

const typebox = TypeCompiler.Compile(FeedRowSchema);

/** Field values near the schema's edges: lengths 0, 1, 64, 65, 128, 129, other types. */
const value = fc.oneof(
  fc.constantFrom('', 'x', 'x'.repeat(64), 'x'.repeat(65), 'x'.repeat(128), 'x'.repeat(129), '🛰'.repeat(32)),
  fc.string({ maxLength: 3 }),
  fc.constantFrom(undefined, null, 0, -1, 1.5, 4294967295, 4294967296, Number.NaN, true, [], {}),
  fc.integer({ min: 0, max: 2 ** 33 }),
);
const name = fc.constantFrom(
  'network',
  'kind',
  'source',
  'first_seen',
  'last_seen',
  'brand',
  'asn',
  'extra',
  'length',
);
const valid = {
  network: '192.0.2.0/24',
  kind: 'k',
  source: 's',
  first_seen: '2026-01-01T00:00:00Z',
  last_seen: '2026-01-02T00:00:00Z',
};

describe('isFeedRow', () => {
  it('answers as the compiled FeedRowSchema check does', () => {
    fc.assert(
      fc.property(fc.dictionary(name, value), fc.boolean(), (changes, fromValid) => {
        const row: Record<string, unknown> = fromValid ? { ...valid, ...changes } : changes;
        expect(isFeedRow(row)).toBe(typebox.Check(row));
      }),
      { numRuns: 5000 },
    );
  });

  it('counts non-enumerable own names as TypeBox does, and refuses what is not an object', () => {
    const hidden = { ...valid };
    Object.defineProperty(hidden, 'extra', { value: 1, enumerable: false });
    for (const v of [hidden, { ...valid, brand: undefined }, { ...valid, asn: 7 }, [], null, 'x', 1])
      expect(isFeedRow(v)).toBe(typebox.Check(v));
    expect(isFeedRow(hidden)).toBe(false);
    expect(isFeedRow({ ...valid })).toBe(true);
  });
});
