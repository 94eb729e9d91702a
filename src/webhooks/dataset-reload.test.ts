/**
 * Dataset events end to end on both stores: the real app, a second dataset version built and
 * swapped in through POST /v1/admin/datasets/reload, the webhook worker, and a receiver on
 * 127.0.0.1 checking every signature. A saved IP whose flags change (is_datacenter) gets exactly
 * one `saved_ip`/`dataset` event (an unchanged one none), also when it was saved after the last
 * dataset check (its baseline is recorded when it is saved). A saved IP whose threat level changes
 * (a second version built with an upstream Spamhaus DROP file listing it: `low` to `high`) gets
 * exactly one such event too, its previous and current threat levels those GET /v1/ip answered.
 */
import '../../test/helpers/dns-guard.ts';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createIntelTestApp, datasetFixture, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { STORE_KINDS, skipStore } from '../../test/helpers/stores.ts';
import { systemClock } from '../core/clock.ts';
import { buildDataset } from '../dataset/index.ts';
import { verifySignature } from './signature.ts';

/** Changes between the versions: AS64500 "Old Org" (npm-a) becomes OVHcloud's AS16276, a hosting network. */
const CHANGED = '100.0.0.1';
/** The same answer in both versions. */
const UNCHANGED = '8.8.8.8';

let fixtureDir: string;
/** An upstream directory (the layout of shared/data) holding only a Spamhaus DROP file listing CHANGED. */
let dropDir: string;
beforeAll(() => {
  dropDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netrep-drop-'));
  fs.mkdirSync(path.join(dropDir, 'spamhaus'));
  fs.writeFileSync(
    path.join(dropDir, 'spamhaus/drop.txt'),
    '; Spamhaus DROP List (test)\n100.0.0.0/24 ; SBL000001\n; EOF\n',
  );
  // npm-b with 100.0.0.0/16 moved to a hosting ASN: the fixtures alone change only its ASN name and
  // country, which the event does not compare.
  fixtureDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netrep-npm-hosting-'));
  fs.cpSync(datasetFixture('npm-b'), fixtureDir, { recursive: true });
  const asn = path.join(fixtureDir, 'asn/asn-ipv4.csv');
  const text = fs.readFileSync(asn, 'utf8');
  expect(text).toContain('100.0.0.0,100.0.255.255,64501,New Org');
  fs.writeFileSync(
    asn,
    text.replace('100.0.0.0,100.0.255.255,64501,New Org', '100.0.0.0,100.0.255.255,16276,OVH SAS'),
  );
});
afterAll(() => {
  fs.rmSync(fixtureDir, { recursive: true, force: true });
  fs.rmSync(dropDir, { recursive: true, force: true });
});

interface Received {
  eventId: string;
  body: string;
  verified: boolean;
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
        body,
        verified: verifySignature(state.secret, String(req.headers['x-netrep-signature'] ?? ''), body),
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(STORE_KINDS)('dataset reload events (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: IntelTestApp;
  let key: string;
  let admin: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeEach(async () => {
    if (skip) return;
    receiver = await startReceiver();
    t = await createIntelTestApp(kind, { config: { webhookAllowPrivate: true, workers: false } });
    key = await t.key({ permissions: ['ip:read'] });
    admin = await t.key({ permissions: ['admin'] });
  }, 120_000);
  afterEach(async () => {
    await t?.close();
    await receiver?.close();
  });

  const call = (method: 'GET' | 'POST', url: string, body?: unknown, k = key) =>
    t.app.http.inject({
      method,
      url,
      headers: { 'x-api-key': k },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  const answerOf = async (ip: string) => {
    const data = (await call('GET', `/v1/ip/${ip}`)).json().data;
    return { threat_level: data.threat.level, flags: data.netrep };
  };
  const save = async (ip: string) =>
    expect((await call('POST', '/v1/saved-ips', { ip })).statusCode).toBe(200);

  /** Builds the second version (by default the hosting one) and swaps it in through the admin route. */
  const reload = async (sources: { npmDir: string; from?: string } = { npmDir: fixtureDir }) => {
    const built = await buildDataset({ dataDir: t.handle.dataDir, clock: systemClock, ...sources });
    const res = await call('POST', '/v1/admin/datasets/reload', undefined, admin);
    expect(res.json().data).toEqual({ previous_version: 1, dataset_version: built.version, reloaded: true });
    return built.version;
  };

  const expectOneEvent = async (version: number, before: object, after: object) => {
    await t.app.webhookWorker.runOnce();
    await t.app.webhookWorker.runOnce();
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0] as Received;
    expect(got.verified).toBe(true);
    const event = JSON.parse(got.body);
    expect(event.id).toBe(got.eventId);
    expect(event).toMatchObject({
      entity_type: 'saved_ip',
      source_key: 'dataset',
      entity: CHANGED,
      state: { dataset_version: version, previous: before, current: after },
    });
    expect(event.state.previous).toEqual(before);
    expect(event.state.current).toEqual(after);
  };

  it.skipIf(skip)(
    'a reload that changes a saved IP’s flags sends one signed saved_ip event, an unchanged one none',
    { timeout: 120_000 },
    async () => {
      const hook = (await call('POST', '/v1/webhooks', { url: receiver.url })).json().data;
      receiver.state.secret = hook.secret;
      await save(CHANGED);
      await save(UNCHANGED);
      await t.app.webhookWorker.runOnce();
      expect(receiver.received).toHaveLength(0);

      const [before, unchangedBefore] = [await answerOf(CHANGED), await answerOf(UNCHANGED)];
      const version = await reload();
      const after = await answerOf(CHANGED);
      // The datacenter points alone leave the level at `low`: the flags are what changes.
      expect([before.flags.is_datacenter, after.flags.is_datacenter]).toEqual([false, true]);
      expect(after.flags.cloud_provider).toBe('OVHcloud');
      expect(await answerOf(UNCHANGED)).toEqual(unchangedBefore);

      await expectOneEvent(version, before, after);
    },
  );

  it.skipIf(skip)(
    'an IP saved after the last dataset check has its baseline at once: its first change is an event',
    { timeout: 120_000 },
    async () => {
      const hook = (await call('POST', '/v1/webhooks', { url: receiver.url })).json().data;
      receiver.state.secret = hook.secret;
      // The worker has seen version 1 before anything was saved.
      await t.app.webhookWorker.runOnce();
      expect(await t.app.services.webhooks.store.cursor('dataset_version')).toBe(1);
      await save(CHANGED);
      await save(UNCHANGED);

      const before = await answerOf(CHANGED);
      const version = await reload();
      await expectOneEvent(version, before, await answerOf(CHANGED));
    },
  );

  it.skipIf(skip)(
    'a reload that changes a saved IP’s threat level (a Spamhaus DROP listing) sends one signed saved_ip event',
    { timeout: 120_000 },
    async () => {
      const hook = (await call('POST', '/v1/webhooks', { url: receiver.url })).json().data;
      receiver.state.secret = hook.secret;
      await save(CHANGED);
      await save(UNCHANGED);
      await t.app.webhookWorker.runOnce();
      expect(receiver.received).toHaveLength(0);

      const [before, unchangedBefore] = [await answerOf(CHANGED), await answerOf(UNCHANGED)];
      // The same npm packages as version 1; the only new input is the DROP file.
      const version = await reload({ npmDir: datasetFixture('npm-a'), from: dropDir });
      const after = await answerOf(CHANGED);
      // +50 for the DROP listing: `low` becomes `high`; the datacenter flag stays as it was.
      expect([before.threat_level, after.threat_level]).toEqual(['low', 'high']);
      expect(after.flags.is_datacenter).toBe(before.flags.is_datacenter);
      const explanation = (await call('GET', `/v1/ip/${CHANGED}`)).json().data.threat.explanation;
      expect(explanation).toContain('+50 prefix on Spamhaus DROP');
      expect(await answerOf(UNCHANGED)).toEqual(unchangedBefore);

      await expectOneEvent(version, before, after);
      const event = JSON.parse((receiver.received[0] as Received).body);
      expect(event.state.previous.threat_level).toBe('low');
      expect(event.state.current.threat_level).toBe('high');
    },
  );
});
