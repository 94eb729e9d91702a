import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (this file lives in <repo>/test/helpers). */
const repoRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** A path inside the shared real public data (`<repo>/../shared/data`, see its SOURCES.md). */
export function sharedDataPath(...parts: string[]): string {
  return path.resolve(repoRoot, '../shared/data', ...parts);
}
