/**
 * Dataset snapshots built once per test run and shared by every test file that needs one
 * (issue #33 item 5): a file asks for a named dataset and gets it hard-linked into its own data
 * dir (`seedDataset`), instead of building it again; the full dataset's MMDB export is made once
 * the same way (`sharedMmdbExport`). The run folder comes from the global setup
 * (test/helpers/global-setup.ts, `inject('netrepDatasetRun')`) and is removed at the end of the run.
 *
 * Each dataset is built the first time a file asks for it, by that file's worker, under a lock
 * (a directory made with mkdir, which only one process wins); the other workers wait for its
 * `ready` mark. A builder that dies leaves its pid in the lock and the next asker takes over.
 * Snapshots are immutable once built (a new version is a new `v<N>` folder, written elsewhere
 * and renamed), so linking their files into several data dirs is safe; nothing writes into them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { systemClock } from '../../src/core/clock.ts';
import { buildDataset } from '../../src/dataset/index.ts';
import { runNetrepAsync } from './process.ts';
import { repoPath, sharedDataPath } from './shared-data.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder holding this run's shared dataset builds (global-setup.ts). */
    netrepDatasetRun: string;
  }
}

/**
 * - `fixture-a`: the small fixture packages (src/dataset/fixtures/npm-a), for tests that need a
 *   loadable snapshot, not the world's data (a second, a few hundred KB).
 * - `npm`: the npm data packages alone, what a first start builds.
 * - `shared`: the npm packages plus every upstream file under ../shared/data, what
 *   `netrep dataset build --from ../shared/data` builds.
 */
export type SharedDataset = 'fixture-a' | 'npm' | 'shared';

const RECIPES: Record<SharedDataset, () => { npmDir?: string; from?: string }> = {
  'fixture-a': () => ({ npmDir: repoPath('src/dataset/fixtures/npm-a') }),
  npm: () => ({}),
  shared: () => ({ from: sharedDataPath() }),
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the build lock of a shared artifact: `mine`, `held` by a live worker, or `stale` (its
 * holder died before the artifact was ready: the lock and what it half built are removed).
 */
function takeBuildLock(lock: string, ready: string, made: readonly string[]): 'mine' | 'held' | 'stale' {
  try {
    fs.mkdirSync(lock);
    return 'mine';
  } catch {
    const holder = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
    if (holder && !alive(holder) && !fs.existsSync(ready)) {
      fs.rmSync(lock, { recursive: true, force: true });
      for (const p of made) fs.rmSync(p, { recursive: true, force: true });
      return 'stale';
    }
    return 'held';
  }
}

function runFolder(): string {
  const run = inject('netrepDatasetRun');
  if (!run) throw new Error('no dataset run folder: vitest.config.ts must list test/helpers/global-setup.ts');
  return run;
}

/**
 * Makes the run's `name` once: the first worker to ask runs `build` under the lock (`made`: the
 * paths it writes, removed if it dies half way), marks it ready or failed; the others wait.
 */
async function oncePerRun(
  name: string,
  made: readonly string[],
  build: () => Promise<void>,
  timeoutMs: number,
): Promise<void> {
  const run = runFolder();
  const ready = path.join(run, `${name}.ready`);
  const failed = path.join(run, `${name}.failed`);
  const lock = path.join(run, `${name}.lock`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (fs.existsSync(ready)) return;
    if (fs.existsSync(failed)) throw new Error(`shared ${name}: ${fs.readFileSync(failed, 'utf8')}`);
    const held = takeBuildLock(lock, ready, made);
    if (held === 'stale') continue;
    if (held === 'mine') {
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      try {
        await build();
        fs.writeFileSync(ready, '');
        return;
      } catch (err) {
        fs.writeFileSync(failed, String((err as Error).stack ?? err));
        throw err;
      }
    }
    if (Date.now() > deadline) throw new Error(`shared ${name} not made in ${timeoutMs} ms`);
    await sleep(200);
  }
}

/** The data dir holding the run's build of `name` (built now if no worker has yet). Read only. */
export async function sharedDatasetDir(name: SharedDataset, timeoutMs = 600_000): Promise<string> {
  const dataDir = path.join(runFolder(), name);
  await oncePerRun(
    name,
    [dataDir],
    async () => {
      await buildDataset({ dataDir, clock: systemClock, ...RECIPES[name]() });
    },
    timeoutMs,
  );
  return dataDir;
}

/** Hard-links every file under `from` into `to` (copies across file systems). */
function linkTree(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) linkTree(src, dst);
    else {
      try {
        fs.linkSync(src, dst);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        fs.copyFileSync(src, dst);
      }
    }
  }
}

/**
 * Puts the run's build of `name` into `dataDir` as its first snapshot (`datasets/v1`), as if
 * it had been built there: a server started on `dataDir` loads it instead of building one.
 * Returns the version seeded.
 */
export async function seedDataset(dataDir: string, name: SharedDataset): Promise<number> {
  const built = path.join(await sharedDatasetDir(name), 'datasets');
  const versions = fs.readdirSync(built).filter((d) => /^v\d+$/.test(d));
  for (const v of versions) linkTree(path.join(built, v), path.join(dataDir, 'datasets', v));
  return versions.length;
}

/**
 * The run's MMDB export of the `shared` dataset, written once by the real binary (`netrep dataset
 * export --format mmdb`, 25-28 s of CPU on the full data) for every file that reads it (the export's
 * agreement with the API, nginx's geoip2 module). `summary` is the line the command printed.
 * Read only.
 */
export async function sharedMmdbExport(timeoutMs = 600_000): Promise<{ file: string; summary: string }> {
  const run = runFolder();
  const file = path.join(run, 'shared.mmdb');
  const summaryFile = path.join(run, 'shared.mmdb.summary');
  const dataDir = path.join(run, 'shared-mmdb-data');
  await oncePerRun(
    'shared.mmdb',
    [file, summaryFile, dataDir],
    async () => {
      await seedDataset(dataDir, 'shared');
      const r = await runNetrepAsync(['dataset', 'export', '--format', 'mmdb', '--out', file], {
        NETREP_DATA_DIR: dataDir,
      });
      if (r.status !== 0 || r.stderr !== '')
        throw new Error(`netrep dataset export exited ${r.status}; stderr: ${r.stderr}`);
      fs.writeFileSync(summaryFile, r.stdout.trim());
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
    timeoutMs,
  );
  return { file, summary: fs.readFileSync(summaryFile, 'utf8') };
}
