/**
 * The shared route contract (STYLE.md §11), over every registered route of the real app:
 * keyed routes answer 401 without a key and with a revoked key, 403 without the permission;
 * every route survives random paths, queries, bodies and content types with no 5xx, and every
 * JSON answer is the envelope.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../src/http/plugins/errors.ts';
import type { TestApp } from '../helpers/app.ts';
import { createIntelTestApp } from '../helpers/intel-app.ts';

let t: TestApp;
let adminKey: string;
let revokedKey: string;
let bareKey: string;

beforeAll(async () => {
  // A small real dataset, so the IP and ASN routes are registered and answer too.
  t = await createIntelTestApp('sqlite', { config: { quotaOverrides: 'enterprise=unlimited' } });
  adminKey = await t.key({ permissions: ['admin'], features: ['telemetry_ingest'] });
  revokedKey = await t.key();
  bareKey = await t.key({ permissions: [] });
  const keys = await t.app.services.accounts.listKeys();
  await t.app.services.accounts.revokeKey(keys[1]!.id);
});
afterAll(async () => {
  await t.close();
});

const isDocs = (r: RouteInfo) => r.url.startsWith('/docs');

function samplePath(url: string, fill: (name: string) => string): string {
  return url
    .replace(/:([A-Za-z_]+)/g, (_m, name: string) => encodeURIComponent(fill(name)))
    .replace(/\*$/, 'x');
}

const validParam: Record<string, string> = {
  ip: '8.8.8.8',
  asn: '15169',
  key_id: '1',
  domain: 'example.com',
  feed: 'tor_exits',
  format: 'csv',
  id: '1',
};

function routes(): RouteInfo[] {
  return t.app.http.routeList.filter((r) => !isDocs(r));
}

function checkEnvelope(
  route: RouteInfo,
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
) {
  expect(
    res.statusCode,
    `${route.method} ${route.url} -> ${res.statusCode} ${res.body.slice(0, 300)}`,
  ).toBeLessThan(500);
  const type = String(res.headers['content-type'] ?? '');
  if (!type.includes('application/json') || !route.envelope) return;
  const body = JSON.parse(res.body) as { data?: unknown; meta?: { processing_time_ms?: unknown } };
  expect(body, `${route.method} ${route.url}`).toHaveProperty('data');
  expect(Number.isInteger(body.meta?.processing_time_ms)).toBe(true);
  if (res.statusCode >= 400) {
    expect(body.data).toMatchObject({ error: expect.any(String), code: expect.any(String) });
  }
}

/**
 * One request of the hostile-input property: the drawn text in the path and the query, the
 * body (for methods that carry one; objects as JSON) with the drawn content type, and the
 * admin key when one is given.
 */
function hostileRequest(
  method: string,
  path: string,
  query: string,
  payload: unknown,
  type: string,
  key: string | false,
) {
  const url = `${path}?q=${encodeURIComponent(query)}&limit=${encodeURIComponent(query)}`;
  const headers: Record<string, string> = {};
  if (key) headers['x-api-key'] = key;
  if (type) headers['content-type'] = type;
  const hasBody = method !== 'GET' && method !== 'DELETE';
  if (!hasBody) return { method: method as 'GET', url, headers };
  const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload);
  return { method: method as 'GET', url, headers, payload: body };
}

describe('shared route contract', () => {
  it('has routes to check', () => {
    expect(routes().length).toBeGreaterThan(40);
    expect(routes().map((r) => r.url)).toContain('/v1/ip/:ip');
  });

  it('keyed routes: 401 without a key, 401 revoked, 403 without the permission', async () => {
    for (const route of routes().filter((r) => r.access.kind === 'key')) {
      const url = samplePath(route.url, (n) => validParam[n] ?? 'x');
      const method = route.method as 'GET';
      const none = await t.app.http.inject({ method, url });
      expect(none.statusCode, `${route.method} ${route.url} without key`).toBe(401);
      const revoked = await t.app.http.inject({ method, url, headers: { 'x-api-key': revokedKey } });
      expect(revoked.statusCode, `${route.method} ${route.url} revoked`).toBe(401);
      expect(revoked.json().data.code).toBe('UNAUTHORIZED');
      const bare = await t.app.http.inject({ method, url, headers: { 'x-api-key': bareKey } });
      expect(bare.statusCode, `${route.method} ${route.url} without permission`).toBe(403);
      expect(bare.json().data.code).toBe('FORBIDDEN');
    }
  });

  it('every route: random input never gives a 5xx, JSON answers are the envelope', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.constantFrom(
        '',
        ' ',
        '%',
        '..',
        '0',
        '-1',
        '1e400',
        'null',
        '::',
        '1.2.3.4',
        '::ffff:1.2.3.4',
        '8.8.8.8/33',
        'é',
        '\u0000',
      ),
    );
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
      fc.json({ maxDepth: 3 }),
      fc.constantFrom(
        '{}',
        '[]',
        'null',
        '{"ips":[]}',
        '{"ips":["1.1.1.1","x"]}',
        '{"observations":[{"ip":"1.1.1.1"}]}',
        '{"headers":""}',
      ),
    );
    const contentType = fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
      '',
    );
    for (const route of routes()) {
      await fc.assert(
        fc.asyncProperty(
          text,
          text,
          body,
          contentType,
          fc.boolean(),
          async (param, query, payload, type, withKey) => {
            const res = await t.app.http.inject(
              hostileRequest(
                route.method,
                samplePath(route.url, () => param),
                query,
                payload,
                type,
                withKey && adminKey,
              ),
            );
            checkEnvelope(route, res);
          },
        ),
        { numRuns: 25, seed: 20261122 },
      );
    }
  });
});
