import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FieldTable } from './field-table.ts';
import { RecordRows } from './record-cursor.ts';
import { canonicalizeRow, compareRows } from './row.ts';
import { RecordWriter } from './row-record.ts';
import type { FeedRow } from './types.ts';

const base = {
  kind: 'k',
  source: 's',
  first_seen: '2026-01-01T00:00:00Z',
  last_seen: '2026-01-02T00:00:00Z',
};
const net = (network: string) => canonicalizeRow({ ...base, network }).row.network;

describe('canonicalizeRow', () => {
  it('normalizes networks through parseCidr: host bits cleared, hosts bare, RFC 5952, mapped IPv4', () => {
    expect(net('10.1.2.3/8')).toBe('10.0.0.0/8');
    expect(net('10.1.2.3/32')).toBe('10.1.2.3');
    expect(net(' 192.0.2.1 ')).toBe('192.0.2.1');
    expect(net('2001:DB8:0:0::1')).toBe('2001:db8::1');
    expect(net('2001:db8::1/128')).toBe('2001:db8::1');
    expect(net('2001:db8::1/32')).toBe('2001:db8::/32');
    expect(net('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(net('::ffff:10.0.0.0/104')).toBe('10.0.0.0/8');
  });

  it.each([
    ['1.2.3.4/33'],
    ['1.2.3'],
    ['010.1.1.1'],
    ['1.2.3.4; rm -rf /'],
    ['1.2.3.4\ndeny all'],
    ['fe80::1%eth0'],
    ['[2001:db8::1]'],
    ['::ffff:0:0/0'],
    ['1.2.3.4/-1'],
    ['1.2.3.4/'],
    [''],
  ])('rejects the hostile or malformed network %j', (network) => {
    expect(() => canonicalizeRow({ ...base, network })).toThrow(TypeError);
  });

  it('rejects rows that are not FeedRows', () => {
    expect(() => canonicalizeRow(null)).toThrow(/invalid feed row/);
    expect(() => canonicalizeRow('1.2.3.4')).toThrow(/invalid feed row/);
    expect(() => canonicalizeRow({ network: '1.2.3.4' })).toThrow(/invalid feed row/);
    expect(() => canonicalizeRow({ ...base, network: '1.2.3.4', asn: -1 })).toThrow(/asn/);
    expect(() => canonicalizeRow({ ...base, network: '1.2.3.4', asn: 2 ** 32 })).toThrow(/asn/);
    expect(() => canonicalizeRow({ ...base, network: '1.2.3.4', asn: 1.5 })).toThrow(/asn/);
    expect(() => canonicalizeRow({ ...base, network: '1.2.3.4', extra: 1 })).toThrow(/invalid feed row/);
    expect(() => canonicalizeRow({ ...base, network: '1.2.3.4', kind: 'x'.repeat(65) })).toThrow(/kind/);
  });

  it('orders by family, then numeric address, then prefix length', () => {
    const order = [
      '9.0.0.0/8',
      '10.0.0.0/8',
      '10.0.0.0/16',
      '10.0.0.1',
      '100.0.0.0/8',
      '::1',
      '2001:db8::/32',
      'ff00::/8',
    ];
    const shuffled = [...order].reverse().map((n) => canonicalizeRow({ ...base, network: n }));
    expect(shuffled.sort(compareRows).map((c) => c.row.network)).toEqual(order);
  });
});

/** A row through its binary record (row-record.ts) and back. */
function viaRecord(row: unknown): ReturnType<typeof canonicalizeRow> {
  const fields = new FieldTable();
  const w = new RecordWriter(fields, 16);
  w.add(row);
  return new RecordRows(fields).row(w.buf, w.offsets[0] as number);
}

describe('RecordWriter and RecordRows (the sort’s record form)', () => {
  const octet = fc.oneof(
    fc.integer({ min: 0, max: 300 }).map(String),
    fc.constantFrom('00', '01', '010', '255', '256', '1000', ''),
  );
  const prefix = fc.oneof(
    fc.constant(''),
    fc.integer({ min: 0, max: 40 }).map((n) => `/${n}`),
    fc.constantFrom('/032', '/00', '/', '/1000', '/-1', '/8 '),
  );
  const v4ish = fc
    .tuple(octet, octet, octet, octet, prefix)
    .map(([a, b, c, d, p]) => `${a}.${b}.${c}.${d}${p}`);
  const text = fc.oneof(
    fc.string({ minLength: 1, maxLength: 8 }),
    fc.constantFrom('"q', 'a\tb', 'a\nb', 'x\\y', '\ud800', '🛰'),
  );

  it('reads every network as canonicalizeRow does (the IPv4 fast path included)', () => {
    fc.assert(
      fc.property(
        fc.oneof(v4ish, fc.constantFrom('2001:DB8::1/64', '::ffff:1.2.3.4', ' 1.2.3.4', '1.2.3.4 ')),
        (network) => {
          const row = { ...base, network };
          let expected: ReturnType<typeof canonicalizeRow> | Error;
          try {
            expected = canonicalizeRow(row);
          } catch (err) {
            expected = err as Error;
          }
          if (expected instanceof Error) expect(() => viaRecord(row)).toThrow(expected.message);
          else expect(viaRecord(row)).toEqual(expected);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('carries any field text through the record unchanged', () => {
    fc.assert(
      fc.property(text, text, text, fc.option(text, { nil: undefined }), (kind, source, seen, brand) => {
        const row = { network: '10.0.0.0/8', kind, source, first_seen: seen, last_seen: seen, brand, asn: 7 };
        if (brand === undefined) delete row.brand;
        expect(viaRecord(row)).toEqual(canonicalizeRow(row));
      }),
    );
  });

  it('writes the fields past a full FieldTable into the records, read back the same', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(text, text, fc.option(text, { nil: undefined }), fc.option(fc.nat(), { nil: undefined })),
          {
            minLength: 1,
            maxLength: 30,
          },
        ),
        (specs) => {
          // Room for two sets: the rest are INLINE, read back among numbered ones in any order.
          const fields = new FieldTable(2);
          const w = new RecordWriter(fields, 16);
          const rows = specs.map(([kind, source, brand, asn], i) => {
            const row: FeedRow = { network: `10.0.${i}.0/24`, kind, source, first_seen: 'a', last_seen: 'b' };
            if (brand !== undefined) row.brand = brand;
            if (asn !== undefined) row.asn = asn;
            w.add(row);
            return row;
          });
          const reader = new RecordRows(fields);
          expect(w.offsets.map((o) => reader.row(w.buf, o))).toEqual(rows.map((r) => canonicalizeRow(r)));
          expect(fields.sets.length).toBeLessThanOrEqual(2);
        },
      ),
    );
  });
});
