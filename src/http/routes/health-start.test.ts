/**
 * /readyz while a `serve` start reads or builds its first dataset (issue #36 item 1), on the real
 * app: the state is set before the listener is bound and nothing is built before it; the 503
 * says what is done, the ETA and where it comes from (the npm data's size, then the recorded
 * build, the snapshot's size, the recorded load); the IP routes answer NOT_READY until it serves.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { datasetFixture } from '../../../test/helpers/intel-app.ts';
import { tempDir } from '../../../test/helpers/stores.ts';
import { type App, createApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { buildDataset } from '../../dataset/index.ts';
import type { BuildRunner } from '../../worker/dataset-build-process.ts';

const dirs: string[] = [];
const apps: App[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const NPM = datasetFixture('npm-a');

/** A build runner that builds in this process from the fixture once `release()` is called. */
function gatedRunner(): { build: BuildRunner; calls: () => number; release: () => void } {
  let calls = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const build: BuildRunner = async (request) => {
    calls++;
    await gate;
    const r = await buildDataset({ dataDir: request.dataDir, clock: () => request.now, npmDir: NPM });
    return r.version;
  };
  return { build, calls: () => calls, release };
}

async function startApp(dataDir: string, build?: BuildRunner): Promise<App> {
  const config = loadConfig(
    { dataDir, listen: '127.0.0.1:0', dnsblListen: '', dnsServers: ['127.0.0.1:9'], datasetUpdate: 'off' },
    {},
  );
  const app = await createApp(config, {
    dataset: 'build',
    datasetUpdate: { npmDir: NPM, ...(build ? { build } : {}) },
  });
  apps.push(app);
  return app;
}

const readyz = async (app: App) => {
  const res = await app.http.inject({ url: '/readyz' });
  return { status: res.statusCode, body: res.json(), retryAfter: res.headers['retry-after'] };
};

describe('/readyz during a start', () => {
  it('builds only once listening; says building, the ETA from the input sizes, then ready', async () => {
    const dir = tempDir('netrep-start-');
    dirs.push(dir);
    const runner = gatedRunner();
    const app = await startApp(dir, runner.build);
    const before = await readyz(app);
    expect(before.status).toBe(503);
    expect(before.body.meta.dataset_start).toMatchObject({ activity: 'building', version: null });
    expect(runner.calls()).toBe(0);

    await app.listen();
    await expect.poll(() => runner.calls()).toBe(1);
    const during = await readyz(app);
    expect(during.status).toBe(503);
    expect(during.body.data.code).toBe('NOT_READY');
    expect(during.body.data.error).toMatch(
      /building the first dataset snapshot from the npm data packages \(about \d+ s left of \d+ s, estimated from the size of the npm data\)/,
    );
    const start = during.body.meta.dataset_start;
    expect(start).toMatchObject({ activity: 'building', eta_basis: 'input sizes', version: null });
    expect(start.expected_seconds).toBeGreaterThanOrEqual(1);
    expect(start.remaining_seconds).toBe(Math.max(0, start.expected_seconds - start.elapsed_seconds));
    expect(Number(during.retryAfter)).toBeGreaterThanOrEqual(1);
    const ip = await app.http.inject({ url: '/v1/public/ip/8.8.8.8' });
    expect(ip.statusCode).toBe(503);
    expect(ip.json().data).toMatchObject({ code: 'NOT_READY', error: expect.stringMatching(/being built/) });

    runner.release();
    await app.datasetStarted;
    const after = await readyz(app);
    expect(after.status).toBe(200);
    expect(after.body.meta.dataset_version).toBe(1);
    expect(after.body.meta.dataset_start).toBeUndefined();
    const times = JSON.parse(fs.readFileSync(path.join(dir, 'dataset-start-times.json'), 'utf8'));
    expect(times.build).toMatchObject({ ms: expect.any(Number), bytes: expect.any(Number) });
    expect(times.build.bytes).toBeGreaterThan(0);
  });

  it('loads a snapshot on disk once listening; the ETA from its size, then from the last load', async () => {
    const dir = tempDir('netrep-start-');
    dirs.push(dir);
    await buildDataset({ dataDir: dir, clock: () => Date.now(), npmDir: NPM });
    const first = await startApp(dir);
    const waiting = await readyz(first);
    expect(waiting.body.meta.dataset_start).toMatchObject({
      activity: 'loading',
      version: 1,
      doing: 'loading dataset snapshot v1',
      eta_basis: 'snapshot size',
    });
    // Nothing is read before the listener is bound.
    await new Promise((r) => setTimeout(r, 50));
    expect(first.services.datasetVersion()).toBeNull();
    await first.listen();
    await first.datasetStarted;
    expect((await readyz(first)).status).toBe(200);
    await first.close();
    apps.splice(apps.indexOf(first), 1);

    const second = await startApp(dir);
    expect((await readyz(second)).body.meta.dataset_start).toMatchObject({
      activity: 'loading',
      eta_basis: 'previous load',
    });
    await second.listen();
    await second.datasetStarted;
    expect((await readyz(second)).status).toBe(200);
  });

  it('a build after a recorded one expects as long as that one took', async () => {
    const dir = tempDir('netrep-start-');
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, 'datasets'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'dataset-start-times.json'),
      JSON.stringify({ build: { ms: 40_000, bytes: 1, at: '2026-11-27T00:00:00Z' } }),
    );
    const runner = gatedRunner();
    const app = await startApp(dir, runner.build);
    const start0 = (await readyz(app)).body.meta.dataset_start;
    expect(start0).toMatchObject({ activity: 'building', eta_basis: 'previous build' });
    runner.release();
    await app.listen();
    await app.datasetStarted;
    expect((await readyz(app)).status).toBe(200);
  });
});
