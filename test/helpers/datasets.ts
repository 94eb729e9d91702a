/**
 * Dataset snapshots built once per test run and shared by every test file that needs one
 * (issue #33 item 5): a file asks for a named dataset and gets it hard-linked into its own data
 * dir (`seedDataset`), instead of building it again. The run folder comes from the global setup
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
 * Takes the build lock of a shared dataset: `mine`, `held` by a live worker, or `stale` (its
 * holder died before the build was ready: the lock and the half-built data are removed).
 */
function takeBuildLock(lock: string, ready: string, dataDir: string): 'mine' | 'held' | 'stale' {
  try {
    fs.mkdirSync(lock);
    return 'mine';
  } catch {
    const holder = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
    if (holder && !alive(holder) && !fs.existsSync(ready)) {
      fs.rmSync(lock, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
      return 'stale';
    }
    return 'held';
  }
}

/** Builds `name` into `dataDir` under the lock taken; marks it ready, or failed with the error. */
async function buildShared(
  name: SharedDataset,
  dataDir: string,
  lock: string,
  ready: string,
  failed: string,
): Promise<void> {
  fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
  try {
    await buildDataset({ dataDir, clock: systemClock, ...RECIPES[name]() });
    fs.writeFileSync(ready, '');
  } catch (err) {
    fs.writeFileSync(failed, String((err as Error).stack ?? err));
    throw err;
  }
}

/** The data dir holding the run's build of `name` (built now if no worker has yet). Read only. */
export async function sharedDatasetDir(name: SharedDataset, timeoutMs = 600_000): Promise<string> {
  const run = inject('netrepDatasetRun');
  if (!run) throw new Error('no dataset run folder: vitest.config.ts must list test/helpers/global-setup.ts');
  const dataDir = path.join(run, name);
  const ready = path.join(run, `${name}.ready`);
  const failed = path.join(run, `${name}.failed`);
  const lock = path.join(run, `${name}.lock`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (fs.existsSync(ready)) return dataDir;
    if (fs.existsSync(failed)) throw new Error(`shared dataset ${name}: ${fs.readFileSync(failed, 'utf8')}`);
    const held = takeBuildLock(lock, ready, dataDir);
    if (held === 'stale') continue;
    if (held === 'mine') {
      await buildShared(name, dataDir, lock, ready, failed);
      return dataDir;
    }
    if (Date.now() > deadline) throw new Error(`shared dataset ${name} not built in ${timeoutMs} ms`);
    await sleep(200);
  }
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
