/**
 * Webhook alerts of DMARC aggregate reports (issue #38 item 3) on both stores: reports built from
 * a real sample are uploaded over HTTP and the events reach a real receiver on 127.0.0.1, signed.
 * The first report of a domain is its baseline; a later new source is one event (the serving
 * dataset's ASN with it); a pass rate under the threshold is one event per crossing, and one
 * back; another owner's hook gets nothing; a failed emit keeps the upload and is sent later.
 */
import '../../test/helpers/dns-guard.ts';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';
import { STORE_KINDS, skipStore } from '../../test/helpers/stores.ts';
import { verifySignature } from '../webhooks/index.ts';
import { alertPassRate, createReportAlerts } from './alerts.ts';
import { createReports } from './index.ts';

const SAMPLE = fs.readFileSync(
  sharedDataPath('email', 'dmarc', 'aggregate', 'example.net_example.com_1529366400_1529452799.xml'),
  'utf8',
);
const DOMAIN = 'example.org';
const DAY_S = 86_400;
const START_S = Date.UTC(2026, 9, 1) / 1000;

type Row = [ip: string, count: number, result: 'pass' | 'fail'];

/** The sample with its report id, day, domain and rows replaced. */
function report(id: string, day: number, rows: Row[], domain = DOMAIN): string {
  const record = SAMPLE.slice(SAMPLE.indexOf('<record>'), SAMPLE.indexOf('</record>') + '</record>'.length);
  const records = rows.map(([ip, count, result]) =>
    record
      .replace('199.230.200.36', ip)
      .replace('<count>1</count>', `<count>${count}</count>`)
      .replace('<dkim>fail</dkim>', `<dkim>${result}</dkim>`)
      .replace('<spf>fail</spf>', `<spf>${result}</spf>`),
  );
  const begin = START_S + day * DAY_S;
  return SAMPLE.replace(record, records.join('\n  '))
    .replace('b043f0e264cf4ea995e93765242f6dfb', id)
    .replace('<begin>1529366400</begin>', `<begin>${begin}</begin>`)
    .replace('<end>1529452799</end>', `<end>${begin + DAY_S - 1}</end>`)
    .replace('<domain>example.com</domain>', `<domain>${domain}</domain>`);
}

interface Received {
  eventId: string;
  verified: boolean;
  event: {
    id: string;
    entity_type: string;
    source_key: string;
    entity: string;
    state: Record<string, unknown>;
  };
}

async function startReceiver() {
  const received: Received[] = [];
  const state = { secret: '' };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({
        eventId: String(req.headers['x-netrep-event-id'] ?? ''),
        verified: verifySignature(state.secret, String(req.headers['x-netrep-signature'] ?? ''), body),
        event: JSON.parse(body),
      });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    state,
    /** The events received since the last call. */
    take: () => received.splice(0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('NETREP_REPORTS_ALERT_PASS_RATE', () => {
  it('reads off or a rate from 0 to 1 and refuses anything else by name', () => {
    expect([alertPassRate('off'), alertPassRate(' OFF '), alertPassRate('0.95'), alertPassRate('1')]).toEqual(
      [null, null, 0.95, 1],
    );
    for (const bad of ['', '1.5', '-0.1', 'ninety', 'NaN', 'Infinity', '0x1'])
      expect(() => alertPassRate(bad), bad).toThrow(/^NETREP_REPORTS_ALERT_PASS_RATE: /);
  });
});

describe.each(STORE_KINDS)('report alerts (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: IntelTestApp;
  let key: string;
  let otherKey: string;
  let mine: Awaited<ReturnType<typeof startReceiver>>;
  let theirs: Awaited<ReturnType<typeof startReceiver>>;

  const call = (method: 'GET' | 'POST', url: string, body: unknown, k: string) =>
    t.app.http.inject({
      method,
      url,
      headers: { 'x-api-key': k, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const upload = (xml: string, k = key) =>
    t.app.http.inject({
      method: 'POST',
      url: '/v1/email/reports',
      headers: { 'x-api-key': k, 'content-type': 'application/xml' },
      payload: xml,
    });
  const stored = async (xml: string, k = key) => {
    const r = await upload(xml, k);
    expect([r.statusCode, r.json().data.duplicate], r.body).toEqual([201, false]);
    return r.json().data.id as number;
  };
  /** Sends the due deliveries and answers what the owner's receiver got. */
  const delivered = async () => {
    await t.app.webhookWorker.runOnce();
    const got = mine.take();
    for (const r of got) {
      expect(r.verified).toBe(true);
      expect(r.eventId).toBe(r.event.id);
    }
    return got.map((r) => r.event);
  };

  beforeAll(async () => {
    if (skip) return;
    [mine, theirs] = [await startReceiver(), await startReceiver()];
    t = await createIntelTestApp(kind, {
      config: {
        webhookAllowPrivate: true,
        workers: false,
        reportsAlertPassRate: '0.9',
        reportsAlertWindowDays: 7,
        reportsAlertMaxSources: 2,
      },
    });
    const permissions = ['ip:read', 'email:read'] as const;
    key = await t.key({ permissions: [...permissions] });
    otherKey = await t.key({ permissions: [...permissions], ownerId: await t.user() });
    mine.state.secret = (await call('POST', '/v1/webhooks', { url: mine.url }, key)).json().data.secret;
    theirs.state.secret = (
      await call('POST', '/v1/webhooks', { url: theirs.url }, otherKey)
    ).json().data.secret;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await mine?.close();
    await theirs?.close();
  });

  it.skipIf(skip)(
    'a new source is one event, a low pass rate one per crossing and one back; the other owner gets none',
    { timeout: 60_000 },
    async () => {
      // The first report of a domain is its baseline: its sources are not new, its rate is fine.
      await stored(report('r1', 1, [['1.0.0.1', 100, 'pass']]));
      expect(await delivered()).toEqual([]);

      const r2 = report('r2', 2, [
        ['1.0.0.1', 100, 'pass'],
        ['8.8.8.8', 5, 'pass'],
      ]);
      const second = await stored(r2);
      const [event, ...rest] = await delivered();
      expect(rest).toEqual([]);
      expect(event).toMatchObject({
        entity_type: 'email_domain',
        source_key: 'dmarc_aggregate',
        entity: DOMAIN,
      });
      expect(event?.state).toEqual({
        alert: 'new_sending_source',
        domain: DOMAIN,
        source_ip: '8.8.8.8',
        asn: 15169,
        asn_name: 'Google LLC',
        country: expect.anything(),
        messages: 5,
        first_report: {
          id: second,
          org_name: 'example.net',
          report_id: 'r2',
          begin: '2026-10-03T00:00:00.000Z',
          end: '2026-10-03T23:59:59.000Z',
        },
      });
      // The same report again is a duplicate: nothing new.
      expect((await upload(r2)).json().data.duplicate).toBe(true);

      // Failures of a known source take the week's rate to 305 / 805.
      await stored(
        report('r3', 3, [
          ['1.0.0.1', 100, 'pass'],
          ['1.0.0.1', 500, 'fail'],
        ]),
      );
      const low = await delivered();
      expect(low.map((e) => e.state)).toEqual([
        {
          alert: 'dmarc_pass_rate_below',
          domain: DOMAIN,
          period: { from: '2026-09-27T23:59:59.000Z', to: '2026-10-04T23:59:59.000Z' },
          pass_rate: 0.3789,
          threshold: 0.9,
          messages: 805,
          dmarc_pass: 305,
          reports: 3,
        },
      ]);
      // Still low: no second event.
      await stored(report('r4', 4, [['1.0.0.1', 100, 'fail']]));
      expect(await delivered()).toEqual([]);

      // A week later the window holds only good mail: back above.
      await stored(report('r5', 12, [['1.0.0.1', 1000, 'pass']]));
      expect((await delivered()).map((e) => [e.state.alert, e.state.pass_rate, e.state.reports])).toEqual([
        ['dmarc_pass_rate_recovered', 1, 1],
      ]);

      // Four new sources with NETREP_REPORTS_ALERT_MAX_SOURCES=2: two events and one summary.
      await stored(
        report('r6', 13, [
          ['1.0.0.1', 1000, 'pass'],
          ['203.0.113.1', 40, 'pass'],
          ['203.0.113.2', 30, 'pass'],
          ['203.0.113.3', 20, 'pass'],
          ['203.0.113.4', 10, 'pass'],
        ]),
      );
      const many = await delivered();
      expect(
        many.map((e) => [e.state.alert, e.state.source_ip ?? e.state.sources, e.state.messages]),
      ).toEqual([
        ['new_sending_source', '203.0.113.1', 40],
        ['new_sending_source', '203.0.113.2', 30],
        ['new_sending_sources', 2, 30],
      ]);
      expect(many[0]?.state).toMatchObject({ asn: null, asn_name: null });

      // Another owner's first report of the same domain: its baseline, nothing to anyone.
      await stored(report('r2', 2, [['8.8.4.4', 5, 'pass']]), otherKey);
      expect(await delivered()).toEqual([]);
      expect(theirs.take()).toEqual([]);
      // The checks and their events are on /metrics (uploads and the mailbox share one counter).
      const metrics = (await t.app.http.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toMatch(/^netrep_report_alerts_total\{outcome="event"\} [1-9]\d*$/m);
      expect(metrics).toMatch(/^netrep_report_alerts_total\{outcome="checked"\} [1-9]\d*$/m);
    },
  );

  it.skipIf(skip)('two reports of a domain checked at once alert once', async () => {
    const domain = 'race.example';
    await stored(report('c1', 1, [['1.0.0.1', 10, 'pass']], domain));
    // Both checks read the domain's state before either stores its events.
    let arrived = 0;
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const alerts = createReportAlerts({
      store: t.app.services.store,
      clock: t.clock,
      settings: { passRate: 0.9, windowDays: 7, maxSources: 20 },
      emit: async (events) => {
        if (++arrived === 2) open();
        await gate;
        return await t.app.services.webhooks.emit(events);
      },
    });
    const reports = createReports({
      store: t.app.services.store,
      clock: t.clock,
      maxDecodedBytes: 1 << 20,
      alerts,
    });
    const low = (id: string, day: number) =>
      Buffer.from(
        report(
          id,
          day,
          [
            ['1.0.0.1', 10, 'fail'],
            ['192.0.2.9', 10, 'fail'],
          ],
          domain,
        ),
      );
    await Promise.all([
      reports.ingest(t.adminId, low('c2', 2), null),
      reports.ingest(t.adminId, low('c3', 3), null),
    ]);
    expect(arrived).toBe(2);
    expect((await delivered()).map((e) => e.state.alert).sort()).toEqual([
      'dmarc_pass_rate_below',
      'new_sending_source',
    ]);
    expect(alerts.counts()).toEqual({ checks: 2, events: 4, failures: 0 });
    // Still low: nothing more.
    await stored(report('c4', 4, [['1.0.0.1', 10, 'fail']], domain));
    expect(await delivered()).toEqual([]);
  });

  it.skipIf(skip)('a failed emit keeps the upload; the events go with the domain’s next report', async () => {
    const domain = 'retry.example';
    await stored(report('f1', 1, [['1.0.0.1', 10, 'pass']], domain));
    expect(await delivered()).toEqual([]);
    const { db } = t.app.services.store;
    await sql`alter table webhook_events rename to webhook_events_away`.execute(db);
    let id: number;
    try {
      id = await stored(report('f2', 2, [['192.0.2.7', 10, 'pass']], domain));
    } finally {
      await sql`alter table webhook_events_away rename to webhook_events`.execute(db);
    }
    const r = await call('GET', `/v1/email/reports/${id}`, undefined, key);
    expect(r.statusCode).toBe(200);
    expect(await delivered()).toEqual([]);

    await stored(report('f3', 3, [['1.0.0.1', 10, 'pass']], domain));
    expect((await delivered()).map((e) => [e.entity, e.state.alert, e.state.source_ip])).toEqual([
      [domain, 'new_sending_source', '192.0.2.7'],
    ]);
    expect(theirs.take()).toEqual([]);
  });
});
