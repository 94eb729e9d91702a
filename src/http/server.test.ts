import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { httpTimeoutsOf } from './server.ts';

describe('httpTimeoutsOf', () => {
  it('defaults: a stalled body is cut within 60 s (request limit plus one check interval)', () => {
    const t = httpTimeoutsOf(loadConfig({}, {}));
    expect(t).toEqual({
      headersTimeout: 20_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 72_000,
      connectionsCheckingInterval: 5_000,
    });
    expect((t.requestTimeout ?? 0) + (t.connectionsCheckingInterval ?? 0)).toBeLessThanOrEqual(60_000);
  });

  it('keeps the head limit within the request limit, checks often for short limits, 0 turns a limit off', () => {
    const short = httpTimeoutsOf({
      httpHeadersTimeoutMs: 900,
      httpRequestTimeoutMs: 400,
      httpKeepAliveTimeoutMs: 1,
    });
    expect(short).toMatchObject({
      headersTimeout: 400,
      requestTimeout: 400,
      connectionsCheckingInterval: 100,
    });
    const off = httpTimeoutsOf({
      httpHeadersTimeoutMs: 10_000,
      httpRequestTimeoutMs: 0,
      httpKeepAliveTimeoutMs: 0,
    });
    expect(off).toMatchObject({ headersTimeout: 10_000, requestTimeout: 0, keepAliveTimeout: 0 });
  });
});
