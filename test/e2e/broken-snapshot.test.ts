/**
 * Restarts over a broken newest snapshot and after a killed build (#32 item 2), on the real
 * binary: one small snapshot is built from the fixture packages and copied to make v1 and v2;
 * v2 is then truncated, loses a file, or gets random bytes over its tables, and `netrep serve`
 * refuses it with a log line naming it and the reason, serves v1, and says so in /readyz and
 * `netrep dataset status`; `netrep dataset verify` exits 3. A reload of a broken v2 answers 409
 * DATASET_BROKEN and v1 keeps serving. The reload of an intact full-size version, which holds
 * /healthz to 50 ms and so runs alone (vitest.config.ts), is test/e2e/reload-latency.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { buildDataset } from '../../src/dataset/index.ts';
import { datasetFixture } from '../helpers/intel-app.ts';
import { adminKey, sqliteServeEnv } from '../helpers/netrep-env.ts';
import { BIN, type NetrepProcess, runNetrep, startNetrep } from '../helpers/process.ts';
import { tempDir } from '../helpers/stores.ts';

type Body = { data: Record<string, unknown>; meta: Record<string, unknown> };

describe('broken newest snapshot and killed builds', () => {
  const dir = tempDir('netrep-broken-');
  const datasets = path.join(dir, 'datasets');
  const pristine = path.join(dir, 'pristine-v1');
  const env = sqliteServeEnv(dir);
  let server: NetrepProcess | null = null;
  let key = '';

  /** v<N>: a copy of v1 renumbered (the manifest is not among the hashed files). */
  const makeVersion = (version: number) => {
    const dest = path.join(datasets, `v${version}`);
    fs.rmSync(dest, { recursive: true, force: true });
    fs.cpSync(pristine, dest, { recursive: true });
    const m = JSON.parse(fs.readFileSync(path.join(dest, 'manifest.json'), 'utf8')) as { version: number };
    m.version = version;
    fs.writeFileSync(path.join(dest, 'manifest.json'), JSON.stringify(m));
    return dest;
  };
  const makeV2 = () => makeVersion(2);
  const req = async (p: string, init: RequestInit = {}): Promise<{ status: number; body: Body }> => {
    const res = await fetch(`${server?.url}${p}`, {
      ...init,
      headers: { 'x-api-key': key, ...(init.headers ?? {}) },
    });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const restart = async () => {
    await server?.stop();
    server = await startNetrep(env, 60_000);
  };

  beforeAll(async () => {
    await buildDataset({ dataDir: dir, clock: systemClock, npmDir: datasetFixture('npm-a') });
    fs.cpSync(path.join(datasets, 'v1'), pristine, { recursive: true });
    // The first start creates the administrator, whom the key is made for.
    server = await startNetrep(env, 60_000);
    key = adminKey(env);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the build writes each file size and SHA-256 into the manifest; verify passes', () => {
    const m = JSON.parse(fs.readFileSync(path.join(pristine, 'manifest.json'), 'utf8')) as {
      files: Record<string, { size: number; sha256: string }>;
    };
    for (const f of ['tables.bin', 'strings.json', 'asns.json', 'provenance.json']) {
      expect(m.files[f]?.size).toBe(fs.statSync(path.join(pristine, f)).size);
      expect(m.files[f]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    // The hashes as coreutils' sha256sum reads them: every file the manifest lists.
    const sums = spawnSync('sha256sum', Object.keys(m.files), { cwd: pristine, encoding: 'utf8' });
    expect(sums.status, sums.stderr).toBe(0);
    const byFile = new Map(
      sums.stdout
        .trim()
        .split('\n')
        .map((line) => [line.slice(66), line.slice(0, 64)] as const),
    );
    for (const [f, entry] of Object.entries(m.files)) expect(entry.sha256, f).toBe(byFile.get(f));
    const ok = runNetrep(['dataset', 'verify'], env);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^v1\tok: sizes and SHA-256 match/m);
  });

  const breakages: [string, (v2: string) => RegExp][] = [
    [
      'a truncated tables.bin',
      (v2) => {
        const f = path.join(v2, 'tables.bin');
        fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2));
        return /tables\.bin is \d+ bytes, the manifest says \d+/;
      },
    ],
    [
      'a missing asns.json',
      (v2) => {
        fs.rmSync(path.join(v2, 'asns.json'));
        return /asns\.json is missing/;
      },
    ],
    [
      'random bytes over tables.bin (same size)',
      (v2) => {
        const f = path.join(v2, 'tables.bin');
        const size = fs.statSync(f).size;
        const fd = fs.openSync(f, 'r+');
        fs.writeSync(fd, randomBytes(Math.min(size, 1 << 20)), 0, Math.min(size, 1 << 20), 0);
        fs.closeSync(fd);
        return /tables\.bin does not match its SHA-256/;
      },
    ],
  ];

  for (const [name, breakIt] of breakages) {
    it(`${name} in v2: serve refuses it, names it, and serves v1`, { timeout: 90_000 }, async () => {
      const reason = breakIt(makeV2());
      await restart();
      expect(server?.output()).toMatch(new RegExp(`dataset v2 refused: ${reason.source}`));
      const ready = await req('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.meta.dataset_version).toBe(1);
      const ds = ready.body.data.dataset as { version: number; verified: boolean; refused: unknown[] };
      expect(ds.version).toBe(1);
      expect(ds.verified).toBe(true);
      expect(ds.refused).toEqual([{ version: 2, reason: expect.stringMatching(reason) }]);
      expect((await req('/v1/ip/8.8.8.8')).body.meta.dataset_version).toBe(1);

      const status = runNetrep(['dataset', 'status'], env);
      expect(status.status, status.stderr).toBe(0);
      expect(status.stdout).toMatch(new RegExp(`dataset v2 refused: ${reason.source}`));
      expect(status.stdout).toMatch(/^dataset v1, built/m);
      const verify = runNetrep(['dataset', 'verify', '--version', '2'], env);
      expect(verify.status).toBe(3);
      expect(verify.stdout).toMatch(new RegExp(`^v2\tbroken: ${reason.source}`, 'm'));

      // A reload of the broken v2: 409 DATASET_BROKEN naming it, v1 keeps serving.
      const reload = await req('/v1/admin/datasets/reload', { method: 'POST' });
      expect(reload.status).toBe(409);
      expect(reload.body.data).toMatchObject({ code: 'DATASET_BROKEN' });
      expect(String(reload.body.data.error)).toMatch(/dataset v2 is broken \(.*\); still serving v1/);
      expect((await req('/v1/ip/8.8.8.8')).body.meta.dataset_version).toBe(1);
    });
  }

  it('a build SIGKILLed while writing v2: the next start sweeps its temp directory and serves v1', {
    timeout: 300_000,
  }, async () => {
    fs.rmSync(path.join(datasets, 'v2'), { recursive: true, force: true });
    await server?.stop();
    // The real build (npm packages), killed once its temp directory holds tables.bin.
    const build = spawn(process.execPath, [BIN, 'dataset', 'build'], {
      cwd: dir,
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    const tmpName = `.tmp-v2-${build.pid}`;
    const deadline = Date.now() + 240_000;
    while (!fs.existsSync(path.join(datasets, tmpName, 'tables.bin')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    build.kill('SIGKILL');
    await new Promise((r) => build.once('exit', r));
    expect(fs.existsSync(path.join(datasets, tmpName))).toBe(true);
    expect(fs.existsSync(path.join(datasets, 'v2'))).toBe(false);

    // Two more points a kill leaves: files half written, and everything written but the rename.
    const dead = spawnSync(process.execPath, ['-e', '']).pid as number;
    const half = path.join(datasets, `.tmp-v2-${dead}`);
    fs.cpSync(pristine, half, { recursive: true });
    fs.truncateSync(path.join(half, 'tables.bin'), 100);
    fs.rmSync(path.join(half, 'asns.json'));

    await restart();
    expect(server?.output()).toContain(`removed ${tmpName}: a build that did not finish`);
    expect(server?.output()).toContain(`removed .tmp-v2-${dead}: a build that did not finish`);
    expect(fs.readdirSync(datasets).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    const ready = await req('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.meta.dataset_version).toBe(1);
    expect((ready.body.data.dataset as { refused: unknown[] }).refused).toEqual([]);
  });
});
