import { describe, expect, it } from 'vitest';
import { createManualClock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { isAppError } from '../core/errors.ts';
import { checkSpfQuery, spfQueryDomain } from './spf-query.ts';

describe('SPF query', () => {
  it('checks the given domain, else the sender domain', () => {
    expect(spfQueryDomain({ domain: ' example.com ', sender: 'a@other.test' })).toBe('example.com');
    expect(spfQueryDomain({ sender: 'bounce@mail.example.org' })).toBe('mail.example.org');
    expect(spfQueryDomain({ sender: 'x@y@z.example' })).toBe('z.example');
    expect(spfQueryDomain({ sender: 'postmaster' })).toBe('');
    expect(spfQueryDomain({ domain: '  ' })).toBe('');
  });

  it('MISSING_DOMAIN and INVALID_IP before any DNS work', async () => {
    // A closed loopback port: any query would fail, none is sent.
    const options = { dns: createDnsClient({ servers: ['127.0.0.1:9'] }), clock: createManualClock() };
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (err: unknown) => (isAppError(err) ? err.code : String(err)),
      );
    expect(await codeOf(checkSpfQuery({ ip: '192.0.2.1', sender: 'nobody' }, options))).toBe(
      'MISSING_DOMAIN',
    );
    expect(await codeOf(checkSpfQuery({ ip: '192.0.2.999', domain: 'example.com' }, options))).toBe(
      'INVALID_IP',
    );
  });
});
