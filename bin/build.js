#!/usr/bin/env node
/**
 * Compiles src/ to dist/ (JavaScript, no type check: `npm run typecheck` does that) with
 * @swc/core, so bin/netrep.js starts without compiling TypeScript at run time (issue #36 item 2:
 * `--help` took 3-4 s of CPU under tsx). Run by `npm run build` and by npm's `prepare` (so
 * `npm install` in a clone builds it). @swc/core is a devDependency: where it is not installed
 * (`npm install --omit=dev`) this says so and exits 0, and bin/netrep.js runs the sources
 * through tsx, as before.
 *
 * The output is written to a temp folder and swapped in by renames, so a process started
 * meanwhile reads either the old build or the new one. dist/.stamp.json (see sourceStamp in
 * bin/stamp.js) records the sources the build read; bin/netrep.js runs dist/ only while the
 * sources still match it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { distIsCurrent, SRC_ROOT, sourceFiles, sourceStamp, STAMP_FILE } from './stamp.js';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const DIST = path.join(ROOT, 'dist');

// `--if-stale` (the CLI start test): nothing to do while dist/ matches the sources.
if (process.argv.includes('--if-stale') && distIsCurrent(new URL('../dist/', import.meta.url))) process.exit(0);

let swc;
try {
  swc = await import('@swc/core');
} catch {
  process.stdout.write('netrep build: @swc/core is not installed (a production install); bin/netrep.js runs src/ through tsx\n');
  process.exit(0);
}

const started = performance.now();
// Read before compiling: a source edited during the build is newer than the stamp, so stale.
const stamp = sourceStamp();
const files = sourceFiles();
const tmp = `${DIST}.tmp-${process.pid}`;
fs.rmSync(tmp, { recursive: true, force: true });

// As tsconfig.json: ES2022 output (class fields defined, as TypeScript's useDefineForClassFields
// at that target), imports kept as written (verbatimModuleSyntax: `import type` goes, the rest
// stays, side effects included), `./x.ts` specifiers rewritten to `./x.js`, import attributes
// (`with { type: 'json' }`) kept.
const options = {
  swcrc: false,
  configFile: false,
  sourceMaps: false,
  jsc: {
    parser: { syntax: 'typescript' },
    target: 'es2022',
    rewriteRelativeImportExtensions: true,
    transform: { verbatimModuleSyntax: true },
    experimental: { keepImportAttributes: true },
  },
  module: { type: 'es6' },
};

const failures = [];
await Promise.all(
  files.map(async (rel) => {
    try {
      const { code } = await swc.transformFile(path.join(SRC_ROOT, rel), options);
      const out = path.join(tmp, rel.replace(/\.ts$/, '.js'));
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, code);
    } catch (err) {
      failures.push(`${rel}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }),
);
if (failures.length > 0) {
  fs.rmSync(tmp, { recursive: true, force: true });
  process.stderr.write(`netrep build: ${failures.length} file(s) did not compile:\n${failures.join('\n')}\n`);
  process.exit(1);
}
fs.writeFileSync(path.join(tmp, STAMP_FILE), `${JSON.stringify(stamp)}\n`);

// dist → dist.old-<pid>, temp → dist, old removed: never a half-written dist/.
const old = `${DIST}.old-${process.pid}`;
if (fs.existsSync(DIST)) fs.renameSync(DIST, old);
fs.renameSync(tmp, DIST);
fs.rmSync(old, { recursive: true, force: true });
process.stdout.write(
  `netrep build: ${files.length} files compiled to dist/ in ${Math.round(performance.now() - started)} ms\n`,
);
