import { describe, expect, it } from 'vitest';
import { clientKeyOf, createConnectionCap } from './connection-cap.ts';

describe('clientKeyOf', () => {
  it('counts IPv4 by address (mapped or not) and IPv6 by /64', () => {
    expect(clientKeyOf('192.0.2.1')).toBe('192.0.2.1');
    expect(clientKeyOf('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientKeyOf('2001:db8:1:2::1')).toBe(clientKeyOf('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(clientKeyOf('2001:db8:1:2::1')).not.toBe(clientKeyOf('2001:db8:1:3::1'));
  });
});

describe('createConnectionCap', () => {
  it('admits up to max per client, and again after a release; a release counts once', () => {
    const cap = createConnectionCap({ max: 2 });
    const a = cap.admit('192.0.2.1');
    const b = cap.admit('192.0.2.1');
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    expect(cap.admit('192.0.2.1')).toBeNull();
    expect(cap.admit('192.0.2.2')).not.toBeNull();
    a?.();
    a?.();
    expect(cap.openFrom('192.0.2.1')).toBe(1);
    expect(cap.admit('192.0.2.1')).not.toBeNull();
    expect(cap.admit('192.0.2.1')).toBeNull();
  });

  it('caps a rotating IPv6 client by its /64', () => {
    const cap = createConnectionCap({ max: 3 });
    for (let i = 1; i <= 3; i++) expect(cap.admit(`2001:db8::${i}`)).not.toBeNull();
    expect(cap.admit('2001:db8::ffff:1')).toBeNull();
    expect(cap.admit('2001:db8:0:1::1')).not.toBeNull();
  });

  it('never caps exempt networks (trusted proxies), an unknown address, or max 0', () => {
    const cap = createConnectionCap({ max: 1, exempt: ['10.0.0.0/8', '2001:db8::/32', 'garbage'] });
    for (let i = 0; i < 5; i++) {
      expect(cap.admit('10.1.2.3')).not.toBeNull();
      expect(cap.admit('2001:db8:ffff::1')).not.toBeNull();
      expect(cap.admit(undefined)).not.toBeNull();
    }
    expect(cap.admit('11.0.0.1')).not.toBeNull();
    expect(cap.admit('11.0.0.1')).toBeNull();
    const off = createConnectionCap({ max: 0 });
    for (let i = 0; i < 5; i++) expect(off.admit('192.0.2.1')).not.toBeNull();
  });
});
