import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../core/errors.ts';
import { intToIpv4 } from '../core/ip.ts';
import { createListingIndex, ipv4TextToInt, snapshotTransferList } from './listing-index.ts';

describe('createListingIndex', () => {
  it('stores IPv4 and IPv6 listings under their normalized form', () => {
    const index = createListingIndex();
    index.set('192.0.2.1', { returnCode: '127.0.0.3', reason: 'malware' });
    index.set('2001:DB8:0:0::1', { returnCode: '127.0.0.4', reason: 'phish' });
    index.set('::ffff:198.51.100.1', { returnCode: '127.0.0.2', reason: 'spam' });
    expect(index.size).toBe(3);
    expect(index.get('192.0.2.1')).toMatchObject({ returnCode: '127.0.0.3', reason: 'malware' });
    expect(index.get('2001:db8::1')).toMatchObject({ returnCode: '127.0.0.4' });
    expect(index.getIpv6('20010db8000000000000000000000001')?.reason).toBe('phish');
    expect(index.get('198.51.100.1')?.reason).toBe('spam');
    expect(index.getIpv4(ipv4TextToInt('198.51.100.1'))?.returnCodeInt).toBe(0x7f000002);
    expect(index.get('192.0.2.2')).toBeUndefined();
    expect(index.get('garbage')).toBeUndefined();
  });

  it('rejects bad addresses and return codes outside 127.0.0.0/8 or equal to 127.0.0.1', () => {
    const index = createListingIndex();
    expect(() => index.set('300.1.1.1', { returnCode: '127.0.0.2', reason: '' })).toThrow(AppError);
    for (const code of ['127.0.0.1', '10.0.0.2', 'x', '127.0.0.02']) {
      expect(() => index.set('192.0.2.1', { returnCode: code, reason: '' }), code).toThrow(AppError);
    }
    expect(index.size).toBe(0);
  });

  it('replaceAll swaps the whole content', () => {
    const index = createListingIndex([{ ip: '192.0.2.1', returnCode: '127.0.0.2', reason: 'a' }]);
    index.replaceAll([{ ip: '192.0.2.2', returnCode: '127.0.0.2', reason: 'b' }]);
    expect(index.get('192.0.2.1')).toBeUndefined();
    expect(index.get('192.0.2.2')?.reason).toBe('b');
    expect(index.size).toBe(1);
  });

  it('behaves like a Map under random set/delete sequences (probe chains, deletions, growth)', () => {
    // Keys from a small range collide often, which exercises backward-shift deletion.
    const op = fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 3000 }), fc.constantFrom('a', 'b', 'c'));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const index = createListingIndex();
        const model = new Map<string, string>();
        for (const [isSet, n, reason] of ops) {
          const ip = intToIpv4((n * 65537) >>> 0);
          if (isSet) {
            index.set(ip, { returnCode: '127.0.0.2', reason });
            model.set(ip, reason);
          } else {
            expect(index.delete(ip)).toBe(model.delete(ip));
          }
        }
        expect(index.size).toBe(model.size);
        for (let n = 0; n <= 3000; n++) {
          const ip = intToIpv4((n * 65537) >>> 0);
          expect(index.get(ip)?.reason).toBe(model.get(ip));
        }
      }),
      { numRuns: 30, seed: 1 },
    );
  });

  it('parses only the strict dotted quad on its fast path', () => {
    expect(ipv4TextToInt('255.255.255.255')).toBe(0xffffffff);
    expect(ipv4TextToInt('0.0.0.0')).toBe(0);
    for (const bad of ['1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.256', '1..2.3', '', '1.2.3.4 ']) {
      expect(ipv4TextToInt(bad), bad).toBe(-1);
    }
  });

  it('a snapshot (as a thread receives it) answers the same and keeps taking changes', () => {
    const index = createListingIndex();
    for (let n = 0; n < 3000; n++) {
      index.set(intToIpv4(0x0a000000 + n * 7), { returnCode: `127.0.0.${2 + (n % 3)}`, reason: `r${n % 5}` });
    }
    index.set('2001:db8::1', { returnCode: '127.0.0.4', reason: 'v6', type: 'phishing' });
    for (let n = 0; n < 3000; n += 2) index.delete(intToIpv4(0x0a000000 + n * 7));
    const snapshot = index.snapshot();
    const copy = createListingIndex(structuredClone(snapshot, { transfer: snapshotTransferList(snapshot) }));
    expect(copy.size).toBe(index.size);
    for (let n = 0; n < 3000; n++) {
      const ip = intToIpv4(0x0a000000 + n * 7);
      expect(copy.get(ip), ip).toEqual(index.get(ip));
    }
    expect(copy.get('2001:db8::1')).toEqual(index.get('2001:db8::1'));
    // Interned values and their counts came along: changes after the copy still add up.
    copy.set('192.0.2.1', { returnCode: '127.0.0.3', reason: 'r1' });
    for (let n = 1; n < 3000; n += 2) copy.delete(intToIpv4(0x0a000000 + n * 7));
    copy.set('192.0.2.2', { returnCode: '127.0.0.9', reason: 'new' });
    expect(copy.size).toBe(3);
    expect(copy.get('192.0.2.1')).toMatchObject({
      returnCode: '127.0.0.3',
      reason: 'r1',
      returnCodeInt: 0x7f000003,
    });
    expect(copy.get('192.0.2.2')?.returnCodeInt).toBe(0x7f000009);
    expect(copy.getIpv6('20010db8000000000000000000000001')?.type).toBe('phishing');
  });
});
