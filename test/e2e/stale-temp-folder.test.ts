/**
 * A restart after a killed build (#32 item 1), on the real binary: a build killed before its
 * rename leaves `datasets/.tmp-v<N>-<pid>`; the next `netrep serve` removes it, logs the removal,
 * and serves the newest built snapshot. (It used to log the removal through the HTTP app's logger
 * before createApp had made it, and die with "Cannot access 'http' before initialization".) A temp
 * folder whose build is still running (its process is alive) is left alone.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { buildDataset } from '../../src/dataset/index.ts';
import { datasetFixture } from '../helpers/intel-app.ts';
import { type NetrepProcess, runNetrep, startNetrep } from '../helpers/process.ts';
import { tempDir } from '../helpers/stores.ts';

/** The pid of a process that has exited (a killed build's). */
function deadPid(): number {
  const done = spawnSync(process.execPath, ['-e', '0']);
  expect(done.status).toBe(0);
  return done.pid;
}

describe('restart over a stale dataset temp folder', () => {
  const dir = tempDir('netrep-stale-tmp-');
  let server: NetrepProcess | null = null;
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sweeps it, logs the sweep and serves the built snapshot', { timeout: 120_000 }, async () => {
    // The smallest built snapshot the tests use: the fixture npm packages (v1).
    const built = await buildDataset({ dataDir: dir, clock: systemClock, npmDir: datasetFixture('npm-a') });
    expect(built.version).toBe(1);
    const datasets = path.join(dir, 'datasets');
    // A v2 build killed mid-way: its temp folder with part of a table in it.
    const stale = `.tmp-v2-${deadPid()}`;
    fs.mkdirSync(path.join(datasets, stale));
    fs.writeFileSync(path.join(datasets, stale, 'tables.bin'), Buffer.alloc(4096, 7));
    // The folder of the reproduction, empty.
    const staleEmpty = '.tmp-v9-999999';
    fs.mkdirSync(path.join(datasets, staleEmpty));
    // A build still running (this test process): not swept.
    const running = `.tmp-v3-${process.pid}`;
    fs.mkdirSync(path.join(datasets, running));

    const env = {
      NETREP_DATA_DIR: dir,
      NETREP_LISTEN: '127.0.0.1:0',
      NETREP_DNSBL_LISTEN: '',
      NETREP_DNS_SERVERS: '127.0.0.1:9',
      NETREP_LOG_LEVEL: 'info',
      NETREP_ADMIN_EMAIL: 'ops@example.test',
      NETREP_ADMIN_PASSWORD: 'correct-horse-battery',
    };
    server = await startNetrep(env, 60_000);
    const out = server.output();
    expect(out).not.toMatch(/before initialization/);
    // Logged as pino records, before the server listened.
    const listening = out.indexOf('listening on');
    for (const name of [stale, staleEmpty]) {
      const line = out.split('\n').find((l) => l.includes(`removed ${name}: a build that did not finish`));
      expect(line, out).toBeDefined();
      expect(JSON.parse(line ?? '{}')).toMatchObject({
        level: 30,
        msg: `removed ${name}: a build that did not finish`,
      });
      expect(out.indexOf(line ?? '')).toBeLessThan(listening);
    }
    expect(out).not.toContain(`removed ${running}`);
    expect(fs.readdirSync(datasets).sort()).toEqual([running, 'v1'].sort());

    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { meta: { dataset_version: number } }).meta.dataset_version).toBe(1);
    const made = runNetrep(
      ['keys', 'create', '--name', 'stale', '--tier', 'free', '--permissions', 'ip:read'],
      env,
    );
    expect(made.status, made.stderr).toBe(0);
    const key = made.stdout.trim().split('\n').at(-1) ?? '';
    const res = await fetch(`${server.url}/v1/ip/8.8.8.8`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { asn: number }; meta: { dataset_version: number } };
    expect(body.data.asn).toBe(15169);
    expect(body.meta.dataset_version).toBe(1);
  });
});
