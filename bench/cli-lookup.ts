/**
 * `netrep lookup --file` on 10,000 addresses, the whole process timed (start, module loading,
 * snapshot load, lookups, output), against the same command with one address measured in the
 * same run (the fixed cost), taking turns for three rounds and keeping each one's best. Then the
 * same steps in process, to show where the time goes. Uses NETREP_DATA_DIR's newest snapshot when
 * there is one, else builds one from the npm packages. Run: node --import tsx bench/cli-lookup.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { systemClock } from '../src/core/clock.ts';
import { type ParsedIp, parseIp } from '../src/core/ip.ts';
import { seededRandom } from '../src/core/random.ts';
import { buildDataset, formatAddr, listDatasetVersions, loadLatestSnapshot } from '../src/dataset/index.ts';
import { createIntel } from '../src/intel/index.ts';

const ADDRESSES = 10_000;
const ROUNDS = 3;
const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bin/netrep.js');
const work = mkdtempSync(path.join(tmpdir(), 'netrep-bench-cli-'));

let dataDir = loadConfig().dataDir;
if (listDatasetVersions(dataDir).length === 0) {
  dataDir = path.join(work, 'data');
  process.stdout.write('no snapshot in NETREP_DATA_DIR: building one from the npm packages\n');
  await buildDataset({ dataDir, clock: systemClock });
}

// Four in five IPv4 (a third of the whole space is unrouted or reserved), one in five IPv6 in 2000::/3.
const rand = seededRandom(20261124);
const word = (): bigint => BigInt(Math.floor(rand() * 2 ** 32));
const list: string[] = [];
for (let i = 0; i < ADDRESSES; i++) {
  list.push(
    i % 5 === 4
      ? formatAddr(6, (((word() << 96n) | (word() << 64n) | (word() << 32n) | word()) >> 3n) | (1n << 125n))
      : formatAddr(4, word()),
  );
}
const listFile = path.join(work, 'addresses.txt');
writeFileSync(listFile, `${list.join('\n')}\n`);

/** Wall and CPU (user + system, all threads) seconds of one run, from bash's time keyword. */
function timed(args: string[]): { wall: number; cpu: number } {
  const script = 'TIMEFORMAT="%3R %3U %3S"; { time "$@" > /dev/null 2>"$0"; } 2>&1';
  const errFile = path.join(work, 'stderr.txt');
  const r = spawnSync(
    'bash',
    ['-c', script, errFile, process.execPath, bin, 'lookup', '--format', 'json', ...args],
    {
      env: { ...process.env, NETREP_DATA_DIR: dataDir },
      encoding: 'utf8',
    },
  );
  const [wall = Number.NaN, user = Number.NaN, sys = Number.NaN] = r.stdout.trim().split(' ').map(Number);
  if (r.status !== 0 || Number.isNaN(wall)) throw new Error(`netrep lookup failed: ${r.stdout} ${r.stderr}`);
  return { wall, cpu: user + sys };
}

const best = (a: { wall: number; cpu: number }, b: { wall: number; cpu: number }) => ({
  wall: Math.min(a.wall, b.wall),
  cpu: Math.min(a.cpu, b.cpu),
});
let many = { wall: Number.POSITIVE_INFINITY, cpu: Number.POSITIVE_INFINITY };
let one = { ...many };
for (let round = 0; round < ROUNDS; round++) {
  many = best(many, timed(['--file', listFile]));
  one = best(one, timed(['8.8.8.8']));
}

// The same steps in process (no module loading): where the time goes.
let t = performance.now();
const lap = (): number => {
  const now = performance.now();
  const ms = now - t;
  t = now;
  return ms;
};
const snapshot = loadLatestSnapshot(dataDir);
if (!snapshot) throw new Error('no snapshot');
const loadMs = lap();
const intel = createIntel({ snapshot });
const indexMs = lap();
const parsed = list.map((a) => parseIp(a) as ParsedIp);
let found = 0;
for (const ip of parsed) if (intel.lookup(ip)) found++;
const lookupMs = lap();

const f = (s: number): string => `${s.toFixed(2)} s`;
process.stdout.write(
  `netrep lookup --file, ${ADDRESSES.toLocaleString('en')} addresses (dataset v${snapshot.version}, ${found} with a record): ` +
    `${f(many.wall)} including start and load (CPU ${f(many.cpu)}), ${Math.round(ADDRESSES / many.wall).toLocaleString('en')} addresses/s; ` +
    `one address (same run): ${f(one.wall)} (CPU ${f(one.cpu)}), so the list adds ${f(many.wall - one.wall)} ` +
    `(best of ${ROUNDS} rounds each, taking turns; load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores)\n` +
    `in process: snapshot load ${Math.round(loadMs)} ms, lookup index ${Math.round(indexMs)} ms, ` +
    `${ADDRESSES.toLocaleString('en')} lookups ${lookupMs.toFixed(1)} ms; the rest of the one-address run is starting node and loading modules\n`,
);
rmSync(work, { recursive: true, force: true });
