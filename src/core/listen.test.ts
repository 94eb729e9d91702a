import { describe, expect, it } from 'vitest';
import { parseHostPort } from './listen.ts';

describe('parseHostPort', () => {
  it('reads host:port and [v6]:port', () => {
    expect(parseHostPort('127.0.0.1:8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(parseHostPort(' [::1]:53 ')).toEqual({ host: '::1', port: 53 });
    expect(parseHostPort('localhost:0')).toEqual({ host: 'localhost', port: 0 });
  });

  it('fills a missing host or port only where the caller has a default', () => {
    const rules = { defaultHost: '127.0.0.1', defaultPort: 8080 };
    expect(parseHostPort(':9000', rules)).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(parseHostPort('0.0.0.0', rules)).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(parseHostPort('[::]', rules)).toEqual({ host: '::', port: 8080 });
    expect(() => parseHostPort(':9000')).toThrow(/host is missing/);
    expect(() => parseHostPort('127.0.0.1')).toThrow(/port is missing/);
  });

  it('refuses ports out of range, unbracketed IPv6 and, when asked, host names', () => {
    for (const bad of ['127.0.0.1:70000', '127.0.0.1:-1', '::1', '::1:53', '[::1:53', 'a:b:c']) {
      expect(() => parseHostPort(bad, { defaultPort: 1, defaultHost: 'h' }), bad).toThrow();
    }
    expect(() => parseHostPort('localhost:53', { ipHost: true, what: 'DNSBL listen address' })).toThrow(
      'invalid DNSBL listen address "localhost:53": the host must be an IP address',
    );
  });
});
