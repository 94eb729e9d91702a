#!/usr/bin/env -S node --expose-gc
// --expose-gc: a full collection after each dataset load returns its garbage (core/collect-garbage.ts).
// Runs the JavaScript that `npm run build` (and `npm install`'s prepare) compiled into dist/ while
// it matches the sources (bin/stamp.js: no source newer than the build, the same files); else,
// in development or where the compiler is not installed, the TypeScript sources through tsx,
// which compiles them at run time (seconds of CPU per command, issue #36 item 2).
import { distIsCurrent } from './stamp.js';

const dist = new URL('../dist/', import.meta.url);
if (distIsCurrent(dist)) {
  await import(new URL('main.js', dist).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
