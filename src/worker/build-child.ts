/**
 * Starts a build child (dataset-build-child.ts, feeds-build-child.ts): `node` with the same tsx
 * loader as the serving process (bin/netrep.js; none when it runs the JavaScript compiled into
 * dist/), the request as one JSON argument, stdout and stderr piped, at a lower CPU priority so
 * the serving process keeps answering while it runs (unless `lowPriority: false`).
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export function spawnBuildChild(
  child: URL,
  args: object,
  options: { lowPriority?: boolean } = {},
): ChildProcessByStdio<null, Readable, Readable> {
  // Compiled to dist/ (bin/build.js), the child is the `.js` beside this file and needs no loader.
  const compiled = import.meta.url.endsWith('.js');
  const file = compiled ? fileURLToPath(child).replace(/\.ts$/, '.js') : fileURLToPath(child);
  const loader = compiled ? [] : ['--import', TSX];
  const proc = spawn(process.execPath, [...loader, file, JSON.stringify(args)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    if (proc.pid && options.lowPriority !== false) setPriority(proc.pid, 10);
  } catch {
    // Lowering the priority needs no privilege; where it is refused anyway, the build runs at normal priority.
  }
  return proc;
}
