/** Saved IPs over HTTP on both stores: add, list, remove, the per-tier cap, hostile input, owners kept apart. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import { SAVED_IP_CAPS } from '../../webhooks/index.ts';

describe.each(STORE_KINDS)('saved IPs (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    if (skip) return;
    t = await createTestApp(kind);
    key = await t.key({ permissions: ['ip:read'] });
  });
  afterAll(async () => {
    await t?.close();
  });

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, k = key) =>
    t.app.http.inject({
      method,
      url,
      headers: { 'x-api-key': k },
      ...(body === undefined ? {} : { payload: body as object }),
    });

  it.skipIf(skip)('adds, relabels, lists and removes an address (normalized)', async () => {
    const added = await call('POST', '/v1/saved-ips', { ip: '::ffff:45.33.32.156', label: 'relay' });
    expect(added.statusCode).toBe(200);
    expect(added.json().data).toEqual({
      ip: '45.33.32.156',
      label: 'relay',
      created_at: '2026-06-15T12:00:00.000Z',
    });
    t.clock.advance(1000);
    expect((await call('POST', '/v1/saved-ips', { ip: '2606:4700:0::1' })).json().data.ip).toBe(
      '2606:4700::1',
    );
    // Saving again changes the label, not the count.
    expect(
      (await call('POST', '/v1/saved-ips', { ip: '45.33.32.156', label: 'relay 2' })).json().data.label,
    ).toBe('relay 2');
    const list = (await call('GET', '/v1/saved-ips?limit=1&offset=1')).json().data;
    expect(list).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(list.saved_ips.map((s: { ip: string }) => s.ip)).toEqual(['2606:4700::1']);
    const removed = await call('DELETE', '/v1/saved-ips/2606:4700:0:0::1');
    expect([removed.statusCode, removed.json().data]).toEqual([200, { ip: '2606:4700::1', saved: false }]);
    const again = await call('DELETE', '/v1/saved-ips/2606:4700::1');
    expect([again.statusCode, again.json().data.code]).toEqual([404, 'NOT_FOUND']);
  });

  it.skipIf(skip)('answers INVALID_IP and INVALID_BODY for hostile input, never a 5xx', async () => {
    for (const ip of ['1.2.3.256', '010.1.1.1', 'fe80::1%eth0', '1.2.3.4/24', '<script>', 'x'.repeat(100)]) {
      const r = await call('POST', '/v1/saved-ips', { ip });
      expect([r.statusCode, r.json().data.code], ip).toEqual([400, 'INVALID_IP']);
    }
    for (const body of [
      {},
      { ip: 16909060 },
      { ip: '1.2.3.4', label: 5 },
      { ip: '1.2.3.4', extra: 1 },
      [],
      'x',
    ]) {
      const r = await call('POST', '/v1/saved-ips', body);
      expect([r.statusCode, r.json().data.code], JSON.stringify(body)).toEqual([400, 'INVALID_BODY']);
    }
    const control = await call('POST', '/v1/saved-ips', { ip: '1.2.3.4', label: 'a\u0000b' });
    expect([control.statusCode, control.json().data.code]).toEqual([400, 'INVALID_BODY']);
    const badDelete = await call('DELETE', '/v1/saved-ips/not-an-ip');
    expect([badDelete.statusCode, badDelete.json().data.code]).toEqual([400, 'INVALID_IP']);
    for (const q of ['limit=0', 'limit=1001', 'offset=-1', 'limit=abc']) {
      const r = await call('GET', `/v1/saved-ips?${q}`);
      expect(r.statusCode, q).toBe(400);
    }
    expect((await t.app.http.inject({ url: '/v1/saved-ips' })).statusCode).toBe(401);
  });

  it.skipIf(skip)('caps saved IPs per tier with a clear message', async () => {
    const owner = await t.user();
    const free = await t.key({ ownerId: owner, tier: 'free', permissions: ['ip:read'] });
    for (let i = 0; i < SAVED_IP_CAPS.free; i++)
      expect((await call('POST', '/v1/saved-ips', { ip: `45.33.40.${i}` }, free)).statusCode).toBe(200);
    const over = await call('POST', '/v1/saved-ips', { ip: '45.33.41.1' }, free);
    expect([over.statusCode, over.json().data.code]).toEqual([400, 'INVALID_BODY']);
    expect(over.json().data.error).toContain(`free tier keeps at most ${SAVED_IP_CAPS.free}`);
    // Relabeling a saved one is not a new address.
    expect((await call('POST', '/v1/saved-ips', { ip: '45.33.40.0', label: 'x' }, free)).statusCode).toBe(
      200,
    );
  });

  it.skipIf(skip)("keeps owners apart: another owner's address is neither listed nor removable", async () => {
    const other = await t.key({ ownerId: await t.user(), permissions: ['ip:read'] });
    await call('POST', '/v1/saved-ips', { ip: '198.51.7.7' });
    expect((await call('GET', '/v1/saved-ips', undefined, other)).json().data.total).toBe(0);
    expect((await call('DELETE', '/v1/saved-ips/198.51.7.7', undefined, other)).statusCode).toBe(404);
    expect((await call('DELETE', '/v1/saved-ips/198.51.7.7')).statusCode).toBe(200);
  });
});
