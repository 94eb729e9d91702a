/**
 * The scheduled dataset update inside the real app, over real HTTP: a snapshot is swapped in
 * while clients keep asking, and a failing update leaves the served one in place, counted on
 * /metrics. Upstream files come from a server on 127.0.0.1 serving the real Tor exit list and
 * Spamhaus DROP from shared/data.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetFixture } from '../../test/helpers/intel-app.ts';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';
import { createTestStore, type TestStoreHandle } from '../../test/helpers/stores.ts';
import { startUpstreamServer, type UpstreamServer } from '../../test/helpers/upstream-server.ts';
import { type App, createApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createManualClock } from '../core/clock.ts';
import { startDatasetUpdater } from './dataset-update.ts';

const TOR = readFileSync(sharedDataPath('tor/exit-addresses'));
const DROP = readFileSync(sharedDataPath('spamhaus/drop.txt'));
/** The next snapshot's Tor list: the same, without the exits in 185.241.208.0/24. */
const TOR_NEXT = TOR.toString().replace(/^ExitAddress 185\.241\.208\..*\n/gm, '');
const EXIT_IP = '185.241.208.232';
const HOUR = 3_600_000;
const ROUTES = ['/v1/ip/', '/v1/public/ip/'] as const;
const IPS = [EXIT_IP, '8.8.8.8'] as const;

interface Answer {
  status: number;
  version: number | undefined;
  data: unknown;
}

describe('scheduled dataset update in the app', () => {
  const clock = createManualClock('2026-06-01T00:00:00Z');
  let upstream: UpstreamServer;
  let handle: TestStoreHandle;
  let app: App;
  let base: string;
  let key: string;
  let releaseTor: () => void;
  let xff = 0;

  beforeAll(async () => {
    upstream = await startUpstreamServer();
    upstream.set('/tor', { kind: 'file', body: TOR });
    upstream.set('/drop', { kind: 'file', body: DROP });
    handle = await createTestStore('sqlite');
    const sourcesFile = path.join(handle.dataDir, 'sources.json');
    writeFileSync(
      sourcesFile,
      JSON.stringify({
        'tor-exit-addresses': upstream.url('/tor'),
        'spamhaus-drop-text': upstream.url('/drop'),
      }),
    );
    // v1, built six hours ago by the same update path (no app yet).
    const first = startDatasetUpdater({
      dataDir: handle.dataDir,
      clock,
      intervalMs: 6 * HOUR,
      sourcesFile,
      builder: true,
      runtime: null,
      scheduled: false,
      npmDir: datasetFixture('npm-a'),
    });
    expect(await first.runOnce()).toMatchObject({ result: 'ok', version: 1 });
    clock.advance(6 * HOUR);
    // The app's first check finds v1 due; its download of the Tor list waits for the test.
    releaseTor = upstream.hold('/tor');
    const config = loadConfig(
      {
        dataDir: handle.dataDir,
        databaseUrl: '',
        listen: '127.0.0.1:0',
        dnsblListen: '',
        dnsServers: ['127.0.0.1:9'],
        datasetUpdate: '6h',
        datasetSources: sourcesFile,
        workers: true,
        // Public lookups carry a different X-Forwarded-For each, so the 60/min bucket never bites.
        trustedProxies: ['127.0.0.1/32'],
      },
      {},
    );
    app = await createApp(config, {
      clock,
      limitPrefix: `swap${process.pid}`,
      datasetUpdate: { npmDir: datasetFixture('npm-a'), checkIntervalMs: 25 },
    });
    base = await app.listen();
    const { user } = await app.services.accounts.createUser({ email: 'ops@example.test', role: 'admin' });
    key = (
      await app.services.accounts.createKey({
        ownerId: user.id,
        name: 'swap',
        tier: 'enterprise',
        permissions: ['ip:read'],
        features: [],
      })
    ).key;
  }, 120_000);

  afterAll(async () => {
    releaseTor?.();
    await app?.close();
    await upstream?.close();
    await handle?.cleanup();
  });

  async function ask(route: (typeof ROUTES)[number], ip: string): Promise<Answer> {
    xff++;
    const headers: Record<string, string> =
      route === '/v1/ip/'
        ? { 'x-api-key': key }
        : { 'x-forwarded-for': `10.${(xff >> 16) & 255}.${(xff >> 8) & 255}.${xff & 255}` };
    const res = await fetch(`${base}${route}${ip}`, { headers });
    const body = (await res.json()) as { data: unknown; meta?: { dataset_version?: number } };
    return { status: res.status, version: body.meta?.dataset_version, data: body.data };
  }

  async function references(): Promise<Map<string, unknown>> {
    const out = new Map<string, unknown>();
    for (const route of ROUTES)
      for (const ip of IPS) {
        const a = await ask(route, ip);
        expect(a.status).toBe(200);
        out.set(`${route}${ip}`, a.data);
      }
    return out;
  }

  it('swaps v2 in under load: every answer is 200 and entirely v1 or entirely v2', async () => {
    expect(app.services.datasetVersion()).toBe(1);
    const v1 = await references();
    expect((v1.get(`/v1/ip/${EXIT_IP}`) as { netrep: { is_tor_exit: boolean } }).netrep.is_tor_exit).toBe(
      true,
    );

    let stop = false;
    const seen: { route: string; ip: string; answer: Answer }[][] = [];
    const client = async (n: number) => {
      const mine: (typeof seen)[number] = [];
      seen.push(mine);
      for (let i = n; !stop; i++) {
        const route = ROUTES[i % 2] as (typeof ROUTES)[number];
        const ip = IPS[(i >> 1) % 2] as string;
        mine.push({ route, ip, answer: await ask(route, ip) });
      }
    };
    const clients = [0, 1, 2, 3, 4, 5].map((n) => client(n));
    // Load is on: the upstream now serves the next Tor list and lets the download through.
    await new Promise((r) => setTimeout(r, 300));
    upstream.set('/tor', { kind: 'file', body: TOR_NEXT });
    releaseTor();
    const deadline = Date.now() + 60_000;
    while (app.services.datasetVersion() !== 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    await Promise.all(clients);
    expect(app.services.datasetVersion()).toBe(2);
    expect(app.datasetUpdater.counts()).toMatchObject({ ok: 1, failed: 0 });

    const v2 = await references();
    expect((v2.get(`/v1/ip/${EXIT_IP}`) as { netrep: { is_tor_exit: boolean } }).netrep.is_tor_exit).toBe(
      false,
    );
    const refs = new Map([
      [1, v1],
      [2, v2],
    ]);
    const byVersion = new Map<number | undefined, number>();
    for (const answers of seen) {
      let latest = 1;
      for (const { route, ip, answer } of answers) {
        expect(answer.status, `${route}${ip}`).toBe(200);
        byVersion.set(answer.version, (byVersion.get(answer.version) ?? 0) + 1);
        expect(answer.data, `${route}${ip} v${answer.version}`).toEqual(
          refs.get(answer.version ?? 0)?.get(`${route}${ip}`),
        );
        // One client never goes back to the old version once it has seen the new one.
        expect(answer.version).toBeGreaterThanOrEqual(latest);
        latest = answer.version ?? latest;
      }
    }
    expect([...byVersion.keys()].sort()).toEqual([1, 2]);
    expect(byVersion.get(1)).toBeGreaterThan(20);
    expect(byVersion.get(2)).toBeGreaterThan(20);

    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^netrep_dataset_version 2$/m);
    expect(metrics).toMatch(/^netrep_dataset_age_seconds 0$/m);
    expect(metrics).toMatch(/^netrep_dataset_update_total\{result="ok"\} 1$/m);
    expect(metrics).toMatch(/^netrep_dataset_update_total\{result="failed"\} 0$/m);
    expect(metrics).toMatch(/^netrep_dataset_update_next_due_seconds 21600$/m);
  }, 120_000);

  it('a scheduled update whose download fails half-way keeps v2 serving and is counted on /metrics', async () => {
    upstream.set('/tor', { kind: 'file', body: TOR });
    upstream.set('/drop', { kind: 'halfway', body: DROP });
    clock.advance(6 * HOUR);
    const deadline = Date.now() + 30_000;
    while (app.datasetUpdater.counts().failed === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(app.datasetUpdater.counts()).toMatchObject({ ok: 1, failed: 1 });
    expect(app.services.datasetVersion()).toBe(2);
    const a = await ask('/v1/public/ip/', EXIT_IP);
    expect(a).toMatchObject({ status: 200, version: 2, data: { netrep: { is_tor_exit: false } } });

    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^netrep_dataset_version 2$/m);
    expect(metrics).toMatch(/^netrep_dataset_age_seconds 21600$/m);
    expect(metrics).toMatch(/^netrep_dataset_update_total\{result="failed"\} 1$/m);
    expect(metrics).toMatch(/^netrep_dataset_download_failures_total\{source="spamhaus-drop-text"\} 1$/m);
    // Retried five minutes after the first failure (the back-off's first step), not an interval later.
    expect(metrics).toMatch(/^netrep_dataset_update_next_due_seconds 300$/m);
  }, 60_000);
});
