/**
 * Memory of a real `netrep serve` (SQLite store, DNSBL off, no scheduled update): VmRSS 3 s after
 * it listens, after 30 s idle, and after five anonymous lookups (which open the DB-IP city files).
 * Reference in the same run: a bare `node` process, and the snapshot's own files (what a server
 * that maps the whole snapshot would hold at least). Issue 18 asks ≤ 350 MB idle with the full
 * dataset: point NETREP_DATA_DIR at a data dir built with `netrep dataset build --from
 * ../shared/data` (else the lookup bench's npm snapshot is used, and the goal line says so).
 * Run: node --import tsx bench/memory.ts
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listDatasetVersions } from '../src/dataset/index.ts';
import { benchDataDir, rssMb, waitListening } from './served.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GOAL_MB = 350;
const IDLE_MS = Number(process.env.BENCH_MEMORY_IDLE_MS ?? 30_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function dirMb(dir: string): number {
  let bytes = 0;
  for (const name of readdirSync(dir)) {
    const s = statSync(path.join(dir, name));
    bytes += s.isDirectory() ? dirMb(path.join(dir, name)) * 1024 * 1024 : s.size;
  }
  return bytes / 1024 / 1024;
}

const work = path.join(tmpdir(), 'netrep-bench-memory');
rmSync(work, { recursive: true, force: true });
// The server's own data dir (its SQLite store goes there), with the snapshots of the one given.
const given = process.env.NETREP_DATA_DIR ?? '';
const full = given !== '' && listDatasetVersions(given).length > 0;
const dataDir = path.join(work, 'data');
if (full) {
  mkdirSync(dataDir, { recursive: true });
  symlinkSync(path.resolve(given, 'datasets'), path.join(dataDir, 'datasets'));
} else await benchDataDir(dataDir);
const snapshot = listDatasetVersions(dataDir).at(-1);
if (!snapshot) throw new Error(`no snapshot in ${dataDir}`);

// The reference: node itself, idle.
const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
await sleep(1000);
const bareMb = rssMb(bare.pid);
bare.kill('SIGTERM');

const server = spawn(process.execPath, ['--expose-gc', path.join(REPO, 'bin/netrep.js'), 'serve'], {
  cwd: REPO,
  env: {
    ...process.env,
    NETREP_DATA_DIR: dataDir,
    NETREP_DATABASE_URL: '',
    NETREP_REDIS_URL: '',
    NETREP_LISTEN: '127.0.0.1:0',
    NETREP_DNSBL_LISTEN: '',
    NETREP_DATASET_UPDATE: 'off',
    NETREP_DNS_SERVERS: '127.0.0.1:9',
    NETREP_LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
try {
  const started = performance.now();
  const base = await waitListening(server, 'netrep serve');
  const startS = (performance.now() - started) / 1000;
  await sleep(3000);
  const at3s = rssMb(server.pid);
  await sleep(IDLE_MS);
  const idle = rssMb(server.pid);
  for (const ip of ['8.8.8.8', '1.1.1.1', '2a00:1450::1', '185.220.101.1', '9.9.9.9']) {
    await (await fetch(`${base}/v1/public/ip/${ip}`)).arrayBuffer();
  }
  await sleep(1000);
  const afterLookups = rssMb(server.pid);
  const f = (mb: number) => `${mb.toFixed(0)} MB`;
  const what = full ? `full dataset (${given})` : 'npm dataset (set NETREP_DATA_DIR for the full one)';
  console.log(
    `memory netrep serve, ${what}, snapshot v${snapshot.version} files ${f(dirMb(snapshot.dir))}: listening after ${startS.toFixed(1)} s; RSS 3 s after ${f(at3s)}, idle ${(IDLE_MS / 1000).toFixed(0)} s ${f(idle)}, after 5 public lookups ${f(afterLookups)}`,
  );
  console.log(`memory reference: bare node idle ${f(bareMb)}`);
  console.log(
    `memory goal idle RSS ≤ ${GOAL_MB} MB with the full dataset: ${f(idle)} ${full ? (idle <= GOAL_MB ? 'met' : 'NOT met') : 'not judged (npm dataset)'}`,
  );
} finally {
  server.kill('SIGTERM');
}
