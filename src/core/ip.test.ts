import { describe, expect, it } from 'vitest';
import { isPublicIp, normalizeIp, parseCidr, parseIp } from './ip.ts';

describe('normalizeIp', () => {
  it.each([
    ['8.8.8.8', '8.8.8.8'],
    ['  8.8.8.8\n', '8.8.8.8'],
    ['2A00:1450:4001:0:0:0:0:1', '2a00:1450:4001::1'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:7F00:2', '127.0.0.2'],
    ['2001:db8::0:1', '2001:db8::1'],
    ['0.0.0.0', '0.0.0.0'],
  ])('%s -> %s', (input, out) => {
    expect(normalizeIp(input)).toBe(out);
  });

  it.each([
    '',
    ' ',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '010.1.1.1',
    '1.2.3.04',
    '0x7f.0.0.1',
    '2130706433',
    'fe80::1%eth0',
    '[::1]',
    '1.2.3.4:80',
    '1.2.3.4/32',
    '::ffff:01.2.3.4',
    'gggg::1',
    '1:2:3:4:5:6:7:8:9',
    'x'.repeat(100),
    '１.２.３.４',
  ])('rejects %j', (input) => {
    expect(normalizeIp(input)).toBeNull();
  });

  it('rejects non-strings', () => {
    expect(normalizeIp(42)).toBeNull();
    expect(normalizeIp(null)).toBeNull();
    expect(normalizeIp({})).toBeNull();
  });
});

describe('parseCidr', () => {
  it('clears host bits unless strict', () => {
    expect(parseCidr('10.1.2.3/8')?.cidr).toBe('10.0.0.0/8');
    expect(parseCidr('10.1.2.3/8', { strict: true })).toBeNull();
    expect(parseCidr('2001:db8::1/32')?.cidr).toBe('2001:db8::/32');
    expect(parseCidr('1.2.3.4')?.cidr).toBe('1.2.3.4/32');
    expect(parseCidr('::ffff:10.0.0.0/104')?.cidr).toBe('10.0.0.0/8');
  });
  it('rejects bad lengths', () => {
    expect(parseCidr('1.2.3.4/33')).toBeNull();
    expect(parseCidr('1.2.3.4/-1')).toBeNull();
    expect(parseCidr('1.2.3.4/')).toBeNull();
    expect(parseCidr('::/129')).toBeNull();
  });
});

describe('isPublicIp', () => {
  it('classifies', () => {
    expect(isPublicIp(parseIp('8.8.8.8')!)).toBe(true);
    expect(isPublicIp(parseIp('10.0.0.1')!)).toBe(false);
    expect(isPublicIp(parseIp('127.0.0.1')!)).toBe(false);
    expect(isPublicIp(parseIp('2a00:1450::1')!)).toBe(true);
    expect(isPublicIp(parseIp('fe80::1')!)).toBe(false);
  });
});
