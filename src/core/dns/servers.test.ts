import { describe, expect, it } from 'vitest';
import { parseDnsServers } from './servers.ts';

describe('parseDnsServers', () => {
  it('accepts ip, ip:port and bracketed IPv6 with port', () => {
    expect(
      parseDnsServers(['127.0.0.1', ' 127.0.0.1:5300 ', '::1', '[::1]:53', '[2001:DB8::1]:5353']),
    ).toEqual(['127.0.0.1', '127.0.0.1:5300', '::1', '[::1]:53', '[2001:db8::1]:5353']);
    expect(parseDnsServers([])).toEqual([]);
  });

  it.each(['', 'localhost', '127.0.0.1:0', '127.0.0.1:70000', '[::1]', '1.2.3', '::1:53x', '[127.0.0.1]:x'])(
    'rejects %j',
    (entry) => {
      if (entry === '[::1]') {
        expect(parseDnsServers([entry])).toEqual(['::1']);
        return;
      }
      expect(() => parseDnsServers([entry])).toThrow(/invalid DNS server/);
    },
  );
});
