/**
 * Restarts over a broken newest snapshot and after a killed build (#32 item 2), on the real
 * binary: one small snapshot is built from the fixture packages and copied to make v1 and v2;
 * v2 is then truncated, loses a file, or gets random bytes over its tables, and `netrep serve`
 * refuses it with a log line naming it and the reason, serves v1, and says so in /readyz and
 * `netrep dataset status`; `netrep dataset verify` exits 3. A reload of a broken v2 answers 409
 * DATASET_BROKEN and v1 keeps serving; a reload of an intact full-size one (the run's build of
 * ../shared/data) is read, checked and its lookup tables built while /healthz keeps answering
 * within 50 ms.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { buildDataset } from '../../src/dataset/index.ts';
import { sharedDatasetDir } from '../helpers/datasets.ts';
import { datasetFixture } from '../helpers/intel-app.ts';
import { BIN, type NetrepProcess, runNetrep, startNetrep } from '../helpers/process.ts';
import { tempDir } from '../helpers/stores.ts';

type Body = { data: Record<string, unknown>; meta: Record<string, unknown> };

/** Hard-links a file (copies it across file systems). */
function linkOrCopy(from: string, to: string): void {
  try {
    fs.linkSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    fs.copyFileSync(from, to);
  }
}

/** Hard-links every file under `from` into `to`, but the manifests. */
function linkAllButManifests(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    if (e.name === 'manifest.json') continue;
    if (e.isDirectory()) linkAllButManifests(path.join(from, e.name), path.join(to, e.name));
    else linkOrCopy(path.join(from, e.name), path.join(to, e.name));
  }
}

describe('broken newest snapshot and killed builds', () => {
  const dir = tempDir('netrep-broken-');
  const datasets = path.join(dir, 'datasets');
  const pristine = path.join(dir, 'pristine-v1');
  const env = {
    NETREP_DATA_DIR: dir,
    NETREP_LISTEN: '127.0.0.1:0',
    NETREP_DNSBL_LISTEN: '',
    NETREP_REDIS_URL: '',
    NETREP_DATABASE_URL: '',
    NETREP_DNS_SERVERS: '127.0.0.1:9',
    NETREP_ADMIN_EMAIL: 'ops@example.test',
    NETREP_ADMIN_PASSWORD: 'correct-horse-battery',
    NETREP_LOG_LEVEL: 'info',
  };
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
    const made = runNetrep(
      ['keys', 'create', '--name', 'ops', '--tier', 'enterprise', '--permissions', 'ip:read,admin'],
      env,
    );
    expect(made.status, made.stderr).toBe(0);
    key = made.stdout.trim().split('\n').at(-1) ?? '';
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

  /**
   * v<N>: the run's full-size snapshot (built once per run from ../shared/data, as
   * `netrep dataset build --from ../shared/data` does) renumbered: its files hard-linked (nothing
   * writes into them), its manifest written anew.
   */
  const fullVersion = (full: string, version: number) => {
    const dest = path.join(datasets, `v${version}`);
    fs.rmSync(dest, { recursive: true, force: true });
    linkAllButManifests(full, dest);
    const m = JSON.parse(fs.readFileSync(path.join(full, 'manifest.json'), 'utf8')) as { version: number };
    m.version = version;
    fs.writeFileSync(path.join(dest, 'manifest.json'), JSON.stringify(m));
  };

  it('a reload with nothing newer answers at once; a full-size version is read, checked and its lookup tables built while /healthz answers within 50 ms', {
    timeout: 900_000,
  }, async () => {
    fs.rmSync(path.join(datasets, 'v2'), { recursive: true, force: true });
    const same = performance.now();
    const nothing = await req('/v1/admin/datasets/reload', { method: 'POST' });
    expect(nothing.status).toBe(200);
    expect(nothing.body.data).toMatchObject({ previous_version: 1, dataset_version: 1, reloaded: false });
    expect(performance.now() - same).toBeLessThan(200);

    // Each attempt reloads a new version of the full dataset (about 90 MB of files, 0.8 million
    // IPv4 and 0.4 million IPv6 intervals): hashed, parsed, then its lookup tables built, which in
    // one piece held the event loop for 0.6 s or more. From the reload request to its answer,
    // every /healthz must answer within 50 ms, and at least three must be answered while the
    // tables are built (between the log line that ends reading and the one that says the version
    // is loaded): a build in one piece would let one through at most. On this shared 2-core
    // machine a process is sometimes descheduled for 50 ms with no reload at all, and a reload's
    // young-generation collections (10-16 ms each, measured 2026-11-27) stretch under that
    // contention, so one attempt in five must hold; the tables-built count must hold in every one.
    const full = path.join(await sharedDatasetDir('shared'), 'datasets', 'v1');
    // A fresh server (and fresh client connections) after what may have been minutes of building.
    await restart();
    const attempts: string[] = [];
    let held = false;
    for (let version = 2; version <= 6 && !held; version++) {
      fullVersion(full, version);
      // Two warm keep-alive connections first, so the probe measures the server, not a handshake.
      for (let i = 0; i < 5; i++)
        await Promise.all([0, 1].map(async () => (await fetch(`${server?.url}/healthz`)).arrayBuffer()));
      const probes: { end: number; ms: number }[] = [];
      let done = false;
      const probe = (async () => {
        while (!done) {
          const t = performance.now();
          const res = await fetch(`${server?.url}/healthz`);
          await res.arrayBuffer();
          probes.push({ end: Date.now(), ms: performance.now() - t });
        }
      })();
      const reload = await req('/v1/admin/datasets/reload', { method: 'POST' });
      done = true;
      await probe;
      expect(reload.status).toBe(200);
      expect(reload.body.data).toMatchObject({
        previous_version: version - 1,
        dataset_version: version,
        reloaded: true,
      });
      const timeOf = (text: string) =>
        (server?.output() ?? '')
          .split('\n')
          .filter((l) => l.includes(text))
          .map((l) => (JSON.parse(l) as { time: number }).time)[0];
      // The log line may reach the pipe after the answer reaches the socket.
      for (let i = 0; i < 100 && timeOf(`dataset v${version} loaded in`) === undefined; i++)
        await new Promise((r) => setTimeout(r, 50));
      const checked = timeOf(`dataset v${version} read and checked in`);
      const loaded = timeOf(`dataset v${version} loaded in`);
      expect(checked).toBeDefined();
      expect(loaded).toBeDefined();
      const building = probes.filter((p) => p.end > (checked as number) && p.end <= (loaded as number));
      expect(building.length, `probes answered while v${version}'s tables were built`).toBeGreaterThanOrEqual(
        3,
      );
      const slowest = (list: { ms: number }[]) => Math.max(...list.map((p) => p.ms));
      attempts.push(
        `v${version}: ${probes.length} probes over the reload (${building.length} while the tables were built, ${(loaded as number) - (checked as number)} ms), slowest ${slowest(probes).toFixed(1)} ms (while building: ${slowest(building).toFixed(1)} ms), ${probes.filter((p) => p.ms >= 50).length} at 50 ms or more`,
      );
      held = slowest(probes) < 50;
    }
    process.stdout.write(`healthz during reloads:\n  ${attempts.join('\n  ')}\n`);
    expect(held, attempts.join('; ')).toBe(true);
  });
});
