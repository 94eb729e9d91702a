/**
 * A dataset reload on the real binary while it answers (#32 item 2): a reload with nothing newer
 * answers at once; a full-size version (the run's build of ../shared/data) is read, checked and
 * its lookup tables built while /healthz keeps answering within 50 ms. It holds a latency, so it
 * runs alone, after the other files (vitest.config.ts); the broken-snapshot and killed-build
 * restarts around it are test/e2e/broken-snapshot.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDataset, sharedDatasetDir } from '../helpers/datasets.ts';
import { adminKey, sqliteServeEnv } from '../helpers/netrep-env.ts';
import { type NetrepProcess, startNetrep } from '../helpers/process.ts';
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

describe('a dataset reload while serving', () => {
  const dir = tempDir('netrep-reload-');
  const datasets = path.join(dir, 'datasets');
  const env = sqliteServeEnv(dir);
  let server: NetrepProcess | null = null;
  let key = '';
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
    // v1: the run's small fixture snapshot; the first start creates the administrator.
    expect(await seedDataset(dir, 'fixture-a')).toBe(1);
    server = await startNetrep(env, 60_000);
    key = adminKey(env);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
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
