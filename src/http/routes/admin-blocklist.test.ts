/**
 * The admin listing routes' own rules (CONTRACT §4): expiry as RFC 3339 with an offset, a DELETE
 * with or without a body, 404 for an address that is not listed. The whole listing lifecycle
 * through these and the read routes is in blocklist.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp('sqlite');
  admin = await t.key({ permissions: ['admin'] });
});
afterAll(async () => {
  await t.close();
});

const list = (body: Record<string, unknown>) =>
  t.app.http.inject({
    method: 'POST',
    url: '/v1/admin/blocklist/listings',
    headers: { 'x-api-key': admin },
    payload: { type: 'spam', reason: 'test', ...body },
  });
const delist = (ip: string, payload?: object) =>
  t.app.http.inject({
    method: 'DELETE',
    url: `/v1/admin/blocklist/listings/${ip}`,
    headers: { 'x-api-key': admin },
    ...(payload ? { payload } : {}),
  });

describe('admin blocklist routes', () => {
  it('expires_at: RFC 3339 with Z or an offset; anything Date.parse would guess at is INVALID_BODY', async () => {
    const ok = await list({ ip: '192.0.2.1', expires_at: '2026-06-16T12:00:00+02:00' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toMatchObject({ ip: '192.0.2.1', expires_at: '2026-06-16T10:00:00.000Z' });
    for (const expires_at of ['2026-06-16', 'June 16 2026', '2026-06-16T12:00:00', 'tomorrow']) {
      const res = await list({ ip: '192.0.2.2', expires_at });
      expect([res.statusCode, res.json().data.code], expires_at).toEqual([400, 'INVALID_BODY']);
    }
  });

  it('DELETE with or without a body; 404 once the address is not listed', async () => {
    await list({ ip: '192.0.2.3' });
    await list({ ip: '192.0.2.4' });
    expect((await delist('192.0.2.3')).json().data).toEqual({ ip: '192.0.2.3', listed: false });
    expect((await delist('192.0.2.4', { reason: 'fixed' })).statusCode).toBe(200);
    const again = await delist('192.0.2.3');
    expect([again.statusCode, again.json().data.code]).toEqual([404, 'NOT_FOUND']);
    const bad = await delist('192.0.2.300');
    expect([bad.statusCode, bad.json().data.code]).toEqual([400, 'INVALID_IP']);
  });
});
