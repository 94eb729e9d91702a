/**
 * The anonymous lookup's latency with the service scan off and on (issue #34: "a lookup's latency
 * does not change with scanning on"): GET /v1/public/ip/{ip} injected into the real app on SQLite
 * over the fixture dataset, each client its own address (the public bucket). Both apps run side
 * by side and the rounds alternate: off, then on with each address's first lookup (a store read,
 * the scan queued after the answer), then on once every address holds a stored result (the
 * steady state: the in-memory copy). Each round takes addresses no round took before. Only
 * 127.0.0.0/8 can be scanned (everything else excluded); the scans go to a closed port.
 * Run: npm run bench -- scan
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type App, createApp } from '../src/app.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { systemClock } from '../src/core/clock.ts';
import { buildDataset } from '../src/dataset/index.ts';
import { ALL_BUT_LOOPBACK } from '../test/helpers/scan-servers.ts';

const N = 2000;
const here = path.dirname(fileURLToPath(import.meta.url));

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const ROUNDS = 5;
/** Address i of round r: 127.<r+1>.x.y, never looked up by another round. */
const addr = (r: number, i: number) => `127.${r + 1}.${(i >> 8) & 255}.${i & 255}`;
let clients = 0;
const client = () => {
  clients++;
  return `100.${(clients >> 16) & 255}.${(clients >> 8) & 255}.${clients & 255}`;
};

/** Median microseconds of N lookups of round r's addresses. */
async function measure(app: App, round: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint();
    const r = await app.http.inject({
      method: 'GET',
      url: `/v1/public/ip/${addr(round, i)}`,
      remoteAddress: client(),
    });
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
    if (r.statusCode !== 200) throw new Error(`lookup answered ${r.statusCode}: ${r.body}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(N / 2)] as number;
}

async function start(dataDir: string, config: Partial<Config>): Promise<App> {
  return await createApp(
    loadConfig(
      {
        dataDir,
        listen: '127.0.0.1:0',
        dnsblListen: '',
        dnsServers: ['127.0.0.1:9'],
        datasetUpdate: 'off',
        workers: false,
        ...config,
      },
      {},
    ),
  );
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netrep-bench-scan-'));
await buildDataset({ dataDir, clock: systemClock, npmDir: path.join(here, '../src/dataset/fixtures/npm-a') });
const off = await start(dataDir, { scan: false });
const port = await closedPort();
const on = await start(dataDir, {
  scan: true,
  scanAllowLoopback: true,
  scanExclude: [...ALL_BUT_LOOPBACK],
  scanPorts: [`${port}/http`],
  scanRate: 1_000_000,
  scanContact: 'mailto:bench@example.test',
});
// Warm-up: both apps, every path (round -1 is 127.0.x.y).
await measure(off, -1);
await measure(on, -1);
while ((await on.scanWorker.runOnce()) > 0);
await measure(on, -1);

const rounds: { off: number; first: number; stored: number }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const offUs = await measure(off, r);
  const first = await measure(on, r); // each address's first lookup: one read, the queue after
  await on.services.scan.settled();
  while ((await on.scanWorker.runOnce()) > 0);
  await measure(on, r); // the in-memory copies of the stored results
  const stored = await measure(on, r);
  rounds.push({ off: offUs, first, stored });
}
await off.close();
await on.close();
fs.rmSync(dataDir, { recursive: true, force: true });
const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const ratios = (k: 'first' | 'stored') => rounds.map((x) => x[k] / x.off);
const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');
process.stdout.write(
  `scan lookup GET /v1/public/ip (inject, ${N} addresses a round, ${ROUNDS} alternating rounds, medians): ` +
    `off ${median(rounds.map((x) => x.off)).toFixed(0)} µs; ` +
    `on, stored result ${median(rounds.map((x) => x.stored)).toFixed(0)} µs (${median(ratios('stored')).toFixed(2)}× off; rounds ${list(ratios('stored'))}); ` +
    `on, first lookup ${median(rounds.map((x) => x.first)).toFixed(0)} µs (${median(ratios('first')).toFixed(2)}× off; rounds ${list(ratios('first'))})\n`,
);
