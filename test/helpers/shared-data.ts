/**
 * Path into the real public data in /work/shared/data, reached as `<repo>/../shared/data`
 * (a symlink makes that work from every worktree). Tests read it at run time; it is never copied.
 */
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
