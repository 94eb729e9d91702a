/**
 * The service scan through the real app (issue #34), on SQLite and PostgreSQL: GET
 * /v1/public/ip/{ip} answers `disabled` with NETREP_SCAN off and stores nothing; on, a lookup
 * queues, the worker scans a real server on 127.0.0.1 once, the next lookups answer from the
 * stored result until its TTL; two instances on one store scan an address once; non-public
 * targets are refused before any packet; the exclusion list, the per-minute cap and the anonymous
 * quota hold; bad addresses get the 400 envelope. Every app here excludes all but 127.0.0.0/8,
 * so no test can scan an address off this machine.
 */
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { createIntelTestApp, type IntelTestApp } from '../../../test/helpers/intel-app.ts';
import {
  ALL_BUT_LOOPBACK,
  respond,
  type ScriptedServer,
  scriptedServer,
} from '../../../test/helpers/scan-servers.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import type { Config } from '../../config.ts';

const page = (socket: Socket) =>
  respond(socket, '200 OK', { Server: 'Scanned/2.0' }, '<title>Front &amp; centre</title>');

function scanConfig(server: ScriptedServer, extra: Partial<Config> = {}): Partial<Config> {
  return {
    workers: false,
    scan: true,
    scanAllowLoopback: true,
    scanExclude: [...ALL_BUT_LOOPBACK],
    scanPorts: [`${server.port}/http`],
    scanContact: 'mailto:ops@example.test',
    scanDeadlineMs: 3000,
    ...extra,
  };
}

type ScanBody = {
  data: Record<string, unknown> & { scan: { status: string; reason?: string; scanned_at: string | null } };
};
const body = (r: { body: string }) => JSON.parse(r.body) as ScanBody;

/**
 * GET /v1/public/ip/{ip} from `remoteAddress`. A lookup answers before its queue write ends; this
 * waits for the write too, so the tests can count rows or run the worker next.
 */
async function lookupSettled(app: TestApp, ip: string, remoteAddress: string) {
  const res = await app.app.http.inject({
    method: 'GET',
    url: `/v1/public/ip/${encodeURIComponent(ip)}`,
    remoteAddress,
  });
  await app.app.services.scan.settled();
  return res;
}

async function rows(t: TestApp): Promise<number> {
  const r = await t.app.store.db
    .selectFrom('scan_results')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

describe.each(STORE_KINDS)('service scan through the app (%s)', (kind) => {
  let server: ScriptedServer;
  let t: IntelTestApp;
  let other: TestApp;
  const lookup = (app: TestApp, ip: string, remoteAddress = '198.51.100.1') =>
    lookupSettled(app, ip, remoteAddress);

  beforeAll(async () => {
    if (skipStore(kind)) return;
    server = await scriptedServer({ onRequest: page });
    t = await createIntelTestApp(kind, {
      config: scanConfig(server, { scanExclude: [...ALL_BUT_LOOPBACK, '127.0.0.9/32'] }),
    });
    // A second instance on the same store (and dataset), as behind a load balancer.
    other = await createTestApp(kind, { handle: t.handle, config: scanConfig(server) });
  }, 120_000);
  afterAll(async () => {
    await other?.close();
    await t?.close();
    await server?.close();
  });

  it.skipIf(skipStore(kind))(
    'queues once, scans once, answers from the stored result until its TTL',
    async () => {
      const first = body(await lookup(t, '127.0.0.1'));
      expect(first.data.scan).toEqual({ status: 'pending', scanned_at: null });
      expect(first.data.service_title).toBeNull();
      // The same address asked on the other instance before any worker ran: still one queued row.
      expect(body(await lookup(other, '127.0.0.1')).data.scan.status).toBe('pending');
      expect(await rows(t)).toBe(1);
      // Both instances' workers at once: one claims the row, the other finds nothing due.
      const ran = await Promise.all([t.app.scanWorker.runOnce(), other.app.scanWorker.runOnce()]);
      expect(ran.reduce((a, b) => a + b, 0)).toBe(1);
      expect(server.connections).toBe(1);
      expect(server.received[0]).toContain('User-Agent: netrep-scan/');
      expect(server.received[0]).toContain('(+mailto:ops@example.test)\r\n');

      t.clock.advance(3000); // past the in-memory copy of the pending row
      other.clock.advance(3000);
      for (const app of [t, other]) {
        const done = body(await lookup(app, '127.0.0.1'));
        expect(done.data.scan).toEqual({ status: 'done', scanned_at: expect.any(String) });
        expect(done.data).toMatchObject({
          service_title: 'Front & centre',
          service_server: 'Scanned/2.0',
          tls_organization: null,
        });
      }
      expect(await t.app.scanWorker.runOnce()).toBe(0);
      expect(server.connections).toBe(1);

      // Past the TTL (7 days): the old fields while the rescan waits, then one more scan.
      t.clock.advance(7 * 86_400_000 + 1000);
      const stale = body(await lookup(t, '127.0.0.1'));
      expect(stale.data.scan.status).toBe('pending');
      expect(stale.data.service_title).toBe('Front & centre');
      expect(await t.app.scanWorker.runOnce()).toBe(1);
      expect(server.connections).toBe(2);
    },
  );

  it.skipIf(skipStore(kind))(
    'refuses excluded and non-public addresses without a row or a packet',
    async () => {
      const before = server.connections;
      const count = await rows(t);
      const excluded = body(await lookup(t, '127.0.0.9'));
      expect(excluded.data.scan).toEqual({
        status: 'refused',
        scanned_at: null,
        reason: '127.0.0.9 is inside 127.0.0.9/32 (NETREP_SCAN_EXCLUDE)',
      });
      const priv = body(await lookup(t, '10.1.2.3'));
      expect(priv.data.scan.status).toBe('refused');
      await t.app.scanWorker.runOnce();
      expect(await rows(t)).toBe(count);
      expect(server.connections).toBe(before);
    },
  );

  it.skipIf(skipStore(kind))('bad addresses get the 400 envelope, never a 500', async () => {
    for (const bad of [
      '999.1.1.1',
      '127.0.0.1%0a',
      '1.2.3.4.5',
      'x'.repeat(300),
      '::ffff:10.0.0.1%eth0',
      '127.1',
    ]) {
      const r = await lookup(t, bad);
      expect(r.statusCode, bad).toBe(400);
      expect(['INVALID_IP', 'INVALID_PARAMETER']).toContain(JSON.parse(r.body).data.code);
    }
  });
});

describe.each(STORE_KINDS)(
  'service scan: off, private targets, the per-minute cap and the anonymous quota (%s)',
  (kind) => {
    let server: ScriptedServer;
    const apps: TestApp[] = [];
    const lookup = (app: TestApp, ip: string, remoteAddress = '198.51.100.2') =>
      lookupSettled(app, ip, remoteAddress);
    const start = async (config: Partial<Config>) => {
      const app = await createIntelTestApp(kind, { config });
      apps.push(app);
      return app;
    };

    beforeAll(async () => {
      if (skipStore(kind)) return;
      server = await scriptedServer({ onRequest: page });
    });
    afterAll(async () => {
      for (const app of apps) await app.close();
      await server?.close();
    });

    it.skipIf(skipStore(kind))(
      'NETREP_SCAN off: every answer says disabled, nothing is stored or scanned',
      async () => {
        const t = await start({ ...scanConfig(server), scan: false });
        for (const ip of ['127.0.0.1', '10.0.0.1', '8.8.8.8']) {
          const b = body(await lookup(t, ip));
          expect(b.data.scan).toEqual({ status: 'disabled', scanned_at: null });
          expect([b.data.service_title, b.data.service_server, b.data.tls_organization]).toEqual([
            null,
            null,
            null,
          ]);
        }
        expect(await t.app.scanWorker.runOnce()).toBe(0);
        expect(await rows(t)).toBe(0);
        expect(server.connections).toBe(0);
      },
    );

    it.skipIf(skipStore(kind))(
      'without the loopback setting, loopback, private and mapped addresses are refused before any packet',
      async () => {
        const t = await start({ ...scanConfig(server), scanAllowLoopback: false, scanExclude: [] });
        const cases: [string, RegExp][] = [
          ['127.0.0.1', /loopback/],
          ['::1', /loopback/],
          ['10.0.0.1', /private/],
          ['192.168.1.1', /private/],
          ['100.64.0.1', /carrierGradeNat/],
          ['169.254.169.254', /linkLocal/],
          ['::ffff:127.0.0.1', /loopback/],
          ['64:ff9b::7f00:1', /NAT64.*127\.0\.0\.1/],
          ['::127.0.0.1', /IPv4-compatible/],
          ['fe80::1', /linkLocal/],
          ['224.0.0.1', /multicast/],
        ];
        for (const [ip, why] of cases) {
          const b = body(await lookup(t, ip));
          expect(b.data.scan.status, ip).toBe('refused');
          expect(b.data.scan.reason, ip).toMatch(why);
        }
        expect(await t.app.scanWorker.runOnce()).toBe(0);
        expect(await rows(t)).toBe(0);
        expect(server.connections).toBe(0);
        expect(t.app.services.scan.counts().refusals.not_public).toBe(cases.length);
      },
    );

    it.skipIf(skipStore(kind))(
      'NETREP_SCAN_RATE caps the scans started per minute; the rest wait in the queue',
      async () => {
        const t = await start(scanConfig(server, { scanRate: 1 }));
        for (const ip of ['127.0.0.1', '127.0.0.2', '127.0.0.3']) await lookup(t, ip);
        expect(await t.app.scanWorker.runOnce()).toBe(1);
        expect(await t.app.scanWorker.runOnce()).toBe(0);
        expect(t.app.services.scan.counts().deferred).toBeGreaterThan(0);
        t.clock.advance(60_000);
        expect(await t.app.scanWorker.runOnce()).toBe(1);
        t.clock.advance(60_000);
        expect(await t.app.scanWorker.runOnce()).toBe(1);
        expect(await t.app.scanWorker.runOnce()).toBe(0);
      },
    );

    it.skipIf(skipStore(kind))(
      'a client never queues more scans than its anonymous quota allows',
      async () => {
        const t = await start(scanConfig(server));
        const client = '203.0.113.77';
        // 59 lookups that queue nothing (a refused address costs one point each)...
        for (let i = 0; i < 59; i++) expect((await lookup(t, '10.0.0.1', client)).statusCode).toBe(200);
        // ...then the 60th, the last point: it answers, but has none left to queue a scan with.
        const last = body(await lookup(t, '127.0.0.4', client));
        expect(last.data.scan.status).toBe('refused');
        expect(last.data.scan.reason).toMatch(/anonymous quota/);
        expect((await lookup(t, '127.0.0.4', client)).statusCode).toBe(429);
        expect(await rows(t)).toBe(0);
        // Another client: one lookup, one point to queue with.
        expect(body(await lookup(t, '127.0.0.4', '203.0.113.78')).data.scan.status).toBe('pending');
        expect(await rows(t)).toBe(1);
        const metrics = await t.app.http.inject({ method: 'GET', url: '/metrics' });
        expect(metrics.body).toMatch(/netrep_scan_refusals_total\{reason="quota"\} 1/);
      },
    );
  },
);
