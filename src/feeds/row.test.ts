import { describe, expect, it } from 'vitest';
import { canonicalizeRow, compareRows } from './row.ts';

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
