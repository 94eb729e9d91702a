/**
 * What a build of dist/ was made from (bin/build.js writes it, bin/netrep.js checks it): the
 * newest modification time among the compiled sources and a hash of their paths. dist/ is
 * current while no source is newer than that time (an edit, a `git checkout`, a pull all set the
 * time to now) and the list of files is the same (one added, removed or renamed). Reading the
 * times of ~400 files costs a few milliseconds, hashing their contents would cost more; an npm
 * tarball gives every file the same old time, which passes.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SRC_ROOT = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), 'src');
export const STAMP_FILE = '.stamp.json';

/** The compiled sources, relative to src/: every .ts file but the tests and test fixtures. */
export function sourceFiles() {
  const out = [];
  const walk = (dir, rel) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name !== 'fixtures') walk(path.join(dir, e.name), name);
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(name);
    }
  };
  walk(SRC_ROOT, '');
  return out.sort();
}

/** { newest, files }: the newest modification time (ms) and a hash of the sorted paths. */
export function sourceStamp() {
  const files = sourceFiles();
  let newest = 0;
  for (const f of files) newest = Math.max(newest, fs.statSync(path.join(SRC_ROOT, f)).mtimeMs);
  return { newest, files: createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 16) };
}

/** Whether dist/ holds a build of the sources as they are now. */
export function distIsCurrent(distUrl) {
  let built;
  try {
    built = JSON.parse(fs.readFileSync(new URL(STAMP_FILE, distUrl), 'utf8'));
  } catch {
    return false;
  }
  // A package that ships dist/ without src/ has nothing to be stale against.
  if (!fs.existsSync(SRC_ROOT)) return true;
  const now = sourceStamp();
  return now.files === built.files && now.newest <= built.newest;
}
