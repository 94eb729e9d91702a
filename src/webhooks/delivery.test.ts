/**
 * Deliveries end to end on both stores, the real app and a receiver on 127.0.0.1 that checks
 * every signature: a listing of a saved IP arrives once with its event id, retries until the
 * receiver accepts, the SSRF guard at delivery time, a graduation reaching the owner's hook.
 */
import '../../test/helpers/dns-guard.ts';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { STORE_KINDS, skipStore } from '../../test/helpers/stores.ts';
import { DAY_MS, toIso } from '../core/clock.ts';
import { verifySignature } from './signature.ts';

interface Received {
  eventId: string;
  signature: string;
  body: string;
  verified: boolean;
}

/** A receiver that verifies each request with the hook's secret and answers as `respond` says. */
async function startReceiver() {
  const received: Received[] = [];
  const state = { secret: '', respond: (_n: number) => 204 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const signature = String(req.headers['x-netrep-signature'] ?? '');
      received.push({
        eventId: String(req.headers['x-netrep-event-id'] ?? ''),
        signature,
        body,
        verified: verifySignature(state.secret, signature, body),
      });
      res.statusCode = state.respond(received.length);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let zone: ZoneServer;
beforeAll(async () => {
  zone = await startZoneServer({ 'moving.example.test': [{ type: 'A', data: '93.184.216.34' }] });
});
afterAll(async () => {
  await zone.close();
});

describe.each(STORE_KINDS)('webhook deliveries (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: TestApp;
  let key: string;
  let admin: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeEach(async () => {
    if (skip) return;
    receiver = await startReceiver();
    t = await createTestApp(kind, {
      clockStart: '2026-04-01T12:00:00Z',
      config: {
        webhookAllowPrivate: true,
        workers: false,
        webhookRetryBaseMs: 1000,
        dnsServers: zone.servers,
      },
      intelFacts: { datacenter: () => null, geoChangeCount90d: () => null },
    });
    key = await t.key({ permissions: ['ip:read', 'email:read'], features: ['telemetry_ingest'] });
    admin = await t.key({ permissions: ['admin'] });
  });
  afterEach(async () => {
    await t?.close();
    await receiver?.close();
  });

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, k = key) =>
    t.app.http.inject({
      method,
      url,
      headers: { 'x-api-key': k },
      ...(body === undefined ? {} : { payload: body as object }),
    });

  const createHook = async (url = receiver.url) => {
    const hook = (await call('POST', '/v1/webhooks', { url })).json().data as { id: number; secret: string };
    receiver.state.secret = hook.secret;
    return hook;
  };
  const log = async (id: number) =>
    (await call('GET', `/v1/webhooks/${id}/deliveries`)).json().data.deliveries;

  it.skipIf(skip)(
    'a saved IP listed through the admin API arrives once, signed, with its event id',
    async () => {
      const hook = await createHook();
      await call('POST', '/v1/saved-ips', { ip: '45.33.32.156' });
      const listed = await call(
        'POST',
        '/v1/admin/blocklist/listings',
        { ip: '45.33.32.156', type: 'spam', reason: 'trap hits' },
        admin,
      );
      expect(listed.statusCode).toBe(200);
      // An address nobody saved sends nothing.
      await call(
        'POST',
        '/v1/admin/blocklist/listings',
        { ip: '45.33.32.157', type: 'spam', reason: 'x' },
        admin,
      );
      await t.app.webhookWorker.runOnce();
      await t.app.webhookWorker.runOnce();
      expect(receiver.received).toHaveLength(1);
      const [got] = receiver.received as [Received];
      expect(got.verified).toBe(true);
      expect(got.signature).toMatch(new RegExp(`^t=${Math.floor(t.clock() / 1000)},v1=[0-9a-f]{64}$`));
      // The same MAC from a reader nobody here wrote: OpenSSL's HMAC over "<t>.<body>".
      const [, stamp, mac] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(got.signature) ?? [];
      const openssl = spawnSync('openssl', ['dgst', '-sha256', '-hmac', receiver.state.secret], {
        input: `${stamp}.${got.body}`,
        encoding: 'utf8',
      });
      expect(openssl.status, openssl.stderr).toBe(0);
      expect(openssl.stdout.trim().split(' ').at(-1)).toBe(mac);
      const payload = JSON.parse(got.body);
      expect(payload).toEqual({
        id: got.eventId,
        entity_type: 'saved_ip',
        source_key: 'blocklist',
        entity: '45.33.32.156',
        state: {
          listed: true,
          action: 'listed',
          type: 'spam',
          reason: 'trap hits',
          return_code: '127.0.0.2',
          expires_at: null,
        },
        occurred_at: toIso(t.clock()),
      });
      expect(await log(hook.id)).toEqual([
        expect.objectContaining({
          event_id: got.eventId,
          attempt: 1,
          status: 'success',
          response_code: 204,
          error: null,
        }),
      ]);
      // Delisting is the next event; the test ping goes out signed too.
      await call('DELETE', '/v1/admin/blocklist/listings/45.33.32.156', undefined, admin);
      const ping = (await call('POST', `/v1/webhooks/${hook.id}/test`)).json().data.event_id;
      await t.app.webhookWorker.runOnce();
      expect(receiver.received.map((r) => r.verified)).toEqual([true, true, true]);
      const bodies = receiver.received.slice(1).map((r) => JSON.parse(r.body));
      expect(bodies.map((b) => [b.entity_type, b.state.listed ?? null])).toEqual(
        expect.arrayContaining([
          ['saved_ip', false],
          ['ping', null],
        ]),
      );
      expect(receiver.received.map((r) => r.eventId)).toContain(ping);
    },
  );

  it.skipIf(skip)('a receiver failing 3 times then accepting: 4 attempts logged, one success', async () => {
    const hook = await createHook();
    receiver.state.respond = (n) => (n <= 3 ? 500 : 204);
    const eventId = (await call('POST', `/v1/webhooks/${hook.id}/test`)).json().data.event_id;
    for (let i = 0; i < 6; i++) {
      await t.app.webhookWorker.runOnce();
      t.clock.advance(10_000);
    }
    expect(receiver.received).toHaveLength(4);
    expect(receiver.received.every((r) => r.verified && r.eventId === eventId)).toBe(true);
    const attempts = await log(hook.id);
    expect(
      attempts.map((a: { attempt: number; status: string; response_code: number }) => [
        a.attempt,
        a.status,
        a.response_code,
      ]),
    ).toEqual([
      [4, 'success', 204],
      [3, 'failed', 500],
      [2, 'failed', 500],
      [1, 'failed', 500],
    ]);
    // The waits grow: each retry is due later than the one before (back-off with jitter).
    const waits = attempts
      .slice(1)
      .reverse()
      .map(
        (a: { attempted_at: string; next_attempt_at: string }) =>
          Date.parse(a.next_attempt_at) - Date.parse(a.attempted_at),
      );
    expect(waits[0]).toBeGreaterThanOrEqual(800);
    expect(waits[2]).toBeGreaterThan(waits[0]);
  });

  it.skipIf(skip)(
    'a delivery whose host now resolves to loopback, in any IPv6 spelling, is refused and logged, nothing sent',
    async () => {
      const guarded = await createTestApp(kind, {
        handle: t.handle,
        config: { webhookAllowPrivate: false, workers: false, dnsServers: zone.servers },
      });
      try {
        const k = await guarded.key({ permissions: ['ip:read'] });
        for (const literal of ['[::127.0.0.1]', '[::ffff:7f00:1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]']) {
          const refused = await guarded.app.http.inject({
            method: 'POST',
            url: '/v1/webhooks',
            headers: { 'x-api-key': k },
            payload: { url: `http://${literal}:${new URL(receiver.url).port}/hook` },
          });
          expect([refused.statusCode, refused.json().data.code], literal).toEqual([400, 'INVALID_BODY']);
          expect(refused.json().data.error, literal).toMatch(
            /refused: .* reaching 127\.0\.0\.1|127\.0\.0\.1 is loopback/,
          );
        }
        const created = await guarded.app.http.inject({
          method: 'POST',
          url: '/v1/webhooks',
          headers: { 'x-api-key': k },
          payload: { url: `http://moving.example.test:${new URL(receiver.url).port}/hook` },
        });
        expect(created.statusCode).toBe(200);
        const id = created.json().data.id;
        // The name moves to loopback (DNS rebinding) before the delivery.
        zone.setZone({ 'moving.example.test': [{ type: 'A', data: '127.0.0.1' }] });
        await guarded.app.http.inject({
          method: 'POST',
          url: `/v1/webhooks/${id}/test`,
          headers: { 'x-api-key': k },
        });
        await guarded.app.webhookWorker.runOnce();
        expect(receiver.received).toEqual([]);
        const attempts = (
          await guarded.app.http.inject({ url: `/v1/webhooks/${id}/deliveries`, headers: { 'x-api-key': k } })
        ).json().data.deliveries;
        expect(attempts).toEqual([
          expect.objectContaining({
            attempt: 1,
            status: 'failed',
            response_code: null,
            error: expect.stringContaining('refused: 127.0.0.1 is loopback'),
          }),
        ]);
        // The same at delivery for every IPv6 spelling of loopback and metadata space.
        const moves: [string, string][] = [
          ['::127.0.0.1', 'refused: ::7f00:1 is IPv4-compatible IPv6 (::/96, deprecated) reaching 127.0.0.1'],
          ['::ffff:7f00:1', 'refused: 127.0.0.1 is loopback'],
          ['64:ff9b::7f00:1', 'refused: 64:ff9b::7f00:1 is NAT64 (64:ff9b::/96) reaching 127.0.0.1'],
          ['64:ff9b::a9fe:a9fe', 'reaching 169.254.169.254, linkLocal'],
          ['2002:7f00:1::1', 'refused: 2002:7f00:1::1 is 6to4 (2002::/16) reaching 127.0.0.1'],
          ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'is Teredo (2001::/32) reaching 127.0.0.1'],
        ];
        for (const [aaaa, error] of moves) {
          zone.setZone({ 'moving.example.test': [{ type: 'AAAA', data: aaaa }] });
          await guarded.app.http.inject({
            method: 'POST',
            url: `/v1/webhooks/${id}/test`,
            headers: { 'x-api-key': k },
          });
          await guarded.app.webhookWorker.runOnce();
          const [latest] = (
            await guarded.app.http.inject({
              url: `/v1/webhooks/${id}/deliveries`,
              headers: { 'x-api-key': k },
            })
          ).json().data.deliveries;
          expect(latest, aaaa).toMatchObject({ attempt: 1, status: 'failed', response_code: null });
          expect(latest.error, aaaa).toContain(error);
        }
        expect(receiver.received).toEqual([]);
      } finally {
        zone.setZone({ 'moving.example.test': [{ type: 'A', data: '93.184.216.34' }] });
        await guarded.app.close();
      }
    },
  );

  it.skipIf(skip)("a graduation reaches the classifying key owner's webhook as email_pool", async () => {
    const ip = '45.33.42.7';
    const tele = await t.key({ permissions: ['telemetry:write'] });
    await createHook();
    const other = await t.key({ ownerId: await t.user(), permissions: ['ip:read'] });
    await call('POST', '/v1/webhooks', { url: receiver.url }, other);
    const ingest = await call(
      'POST',
      '/v1/email/telemetry/ingest',
      { observations: [{ ip, volume_24h: 1000, bounce_rate: 0.01, complaint_rate: 0 }] },
      tele,
    );
    expect(ingest.json().data.accepted).toBe(1);
    t.clock.advance(31 * DAY_MS);
    expect((await call('POST', '/v1/email/pool/classify', { ips: [ip] })).json().data[0].tier).toBe(
      'probation',
    );
    await call(
      'POST',
      '/v1/admin/evidence',
      { events: [{ ip, kind: 'recycled_trap', observed_at: toIso(t.clock() - 730 * DAY_MS) }] },
      admin,
    );
    t.clock.advance(60_000);
    expect((await call('POST', '/v1/email/pool/classify', { ips: [ip] })).json().data[0].tier).toBe(
      'seasoned',
    );
    // onGraduation stores the event after the classification; give it its turn.
    await new Promise((r) => setTimeout(r, 50));
    await t.app.webhookWorker.runOnce();
    expect(receiver.received).toHaveLength(1);
    const payload = JSON.parse((receiver.received[0] as Received).body);
    expect(receiver.received[0]?.verified).toBe(true);
    expect(payload).toMatchObject({
      entity_type: 'email_pool',
      source_key: 'email_pool',
      entity: ip,
      state: { previous_tier: 'probation', tier: 'seasoned' },
    });
  });
});
