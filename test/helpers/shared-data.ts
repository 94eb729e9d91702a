import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** Absolute path inside the shared real-data folder (`<repo>/../shared/data`). */
export function sharedDataPath(...parts: string[]): string {
  return path.resolve(repoRoot, '../shared/data', ...parts);
}

/** Absolute path of the repository root (for node_modules data packages). */
export function repoPath(...parts: string[]): string {
  return path.resolve(repoRoot, ...parts);
}
