/** Path into /work/shared/data, reached as `<repo>/../shared/data` (never copied into the repo). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

export function sharedDataPath(...parts: string[]): string {
  return path.resolve(repoRoot, '../shared/data', ...parts);
}
