/**
 * `npm run bench [-- name ...]`: runs the benchmarks one after another, each in its own
 * process (so one's memory and JIT state do not colour the next), and prints their lines.
 * Every benchmark measures a reference in the same run and prints ratios against it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ALL = [
  'lookup',
  'cli-lookup',
  'http',
  'json',
  'memory',
  'dnsbl',
  'reputation',
  'emailauth',
  'headers',
  'feeds',
  'audit',
];
/** Run only when named (`npm run bench -- soak`): five minutes of mixed traffic. */
const ON_REQUEST = ['soak'];
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = wanted.length > 0 ? wanted : ALL;
let failed = 0;
for (const name of names) {
  const file = path.join(here, `${name}.ts`);
  if (!fs.existsSync(file)) {
    process.stderr.write(`bench: no benchmark named ${name} (have: ${[...ALL, ...ON_REQUEST].join(', ')})\n`);
    failed++;
    continue;
  }
  process.stdout.write(`\n## ${name}\n`);
  const res = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', file], { stdio: 'inherit' });
  if (res.status !== 0) {
    process.stderr.write(`bench: ${name} exited with ${res.status}\n`);
    failed++;
  }
}
process.exitCode = failed > 0 ? 1 : 0;
