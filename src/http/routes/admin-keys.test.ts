/** Key administration over HTTP: features set by an administrator, revocation by id. */
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

const idOf = async (key: string) => {
  const principal = await t.app.services.accounts.authenticate(key);
  if (!principal) throw new Error('the key does not authenticate');
  return principal.keyId;
};
const revoke = (id: number | string, k = admin) =>
  t.app.http.inject({ method: 'DELETE', url: `/v1/admin/keys/${id}`, headers: { 'x-api-key': k } });
const lookupBlocklist = (k: string) =>
  t.app.http.inject({ url: '/v1/blocklist/stats', headers: { 'x-api-key': k } });

describe('DELETE /v1/admin/keys/{key_id}', () => {
  it('revokes the key: the answer carries revoked_at and the key gets 401 at once', async () => {
    const key = await t.key({ permissions: ['blocklist:read'] });
    expect((await lookupBlocklist(key)).statusCode).toBe(200);
    const id = await idOf(key);
    const res = await revoke(id);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id, revoked_at: '2026-06-15T12:00:00.000Z' });
    const after = await lookupBlocklist(key);
    expect([after.statusCode, after.json().data.code]).toEqual([401, 'UNAUTHORIZED']);
    // Again: nothing changes, the same revocation time.
    expect((await revoke(id)).json().data.revoked_at).toBe('2026-06-15T12:00:00.000Z');
  });

  it('404 for an unknown id, 400 for a malformed one, 403 without the admin permission', async () => {
    const unknown = await revoke(999_999);
    expect([unknown.statusCode, unknown.json().data.code]).toEqual([404, 'NOT_FOUND']);
    const malformed = await revoke('abc');
    expect([malformed.statusCode, malformed.json().data.code]).toEqual([400, 'INVALID_PARAMETER']);
    const member = await t.key({ permissions: ['blocklist:read'] });
    const target = await t.key();
    const denied = await revoke(await idOf(target), member);
    expect([denied.statusCode, denied.json().data.code]).toEqual([403, 'FORBIDDEN']);
    expect((await lookupBlocklist(target)).statusCode).toBe(200);
  });
});

describe('POST /v1/admin/keys/{key_id}/features', () => {
  it('sets and clears telemetry_ingest', async () => {
    const id = await idOf(await t.key());
    const set = (on: boolean) =>
      t.app.http.inject({
        method: 'POST',
        url: `/v1/admin/keys/${id}/features`,
        headers: { 'x-api-key': admin },
        payload: { telemetry_ingest: on },
      });
    expect((await set(true)).json().data.features).toEqual(['telemetry_ingest']);
    expect((await set(false)).json().data.features).toEqual([]);
  });
});
