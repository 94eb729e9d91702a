/**
 * The anonymous lookup's latency with the service scan off and on (issue #34: "a lookup's latency
 * does not change with scanning on"): GET /v1/public/ip/{ip} injected into the real app on SQLite
 * over the fixture dataset, each client its own address (the public bucket). Both apps run side
 * by side and take turns lookup by lookup (the machine's load drifts within a round; a round of
 * one app, then one of the other, measured that drift as much as the scan): in each round, first
 * off and on with each address's first lookup (the scan queued after the answer), then, once the
 * worker has stored every address's result, off and on again with the stored result (the steady
 * state: the in-memory copy). Each round takes addresses no round took before. Only 127.0.0.0/8
 * can be scanned (everything else excluded); the scans go to a closed port.
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

/** One lookup of `ip` by a new client: microseconds. */
async function once(app: App, ip: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  const r = await app.http.inject({ method: 'GET', url: `/v1/public/ip/${ip}`, remoteAddress: client() });
  const us = Number(process.hrtime.bigint() - t0) / 1000;
  if (r.statusCode !== 200) throw new Error(`lookup answered ${r.statusCode}: ${r.body}`);
  return us;
}

const middle = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Median microseconds of both apps over round r's N addresses, taking turns (who goes first alternates). */
async function measure(a: App, b: App, round: number): Promise<[number, number]> {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < N; i++) {
    const ip = addr(round, i);
    if (i % 2 === 0) {
      ta.push(await once(a, ip));
      tb.push(await once(b, ip));
    } else {
      tb.push(await once(b, ip));
      ta.push(await once(a, ip));
    }
  }
  return [middle(ta), middle(tb)];
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
await measure(off, on, -1);
await on.services.scan.settled();
while ((await on.scanWorker.runOnce()) > 0);
await measure(off, on, -1);

const rounds: { off: number; first: number; offStored: number; stored: number }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const [offUs, first] = await measure(off, on, r); // each address's first lookup, the queue after
  await on.services.scan.settled();
  while ((await on.scanWorker.runOnce()) > 0);
  await measure(off, on, r); // the in-memory copies of the stored results
  const [offStored, stored] = await measure(off, on, r);
  rounds.push({ off: offUs, first, offStored, stored });
}
await off.close();
await on.close();
fs.rmSync(dataDir, { recursive: true, force: true });
const median = middle;
const ratios = (k: 'first' | 'stored') => rounds.map((x) => x[k] / (k === 'first' ? x.off : x.offStored));
const list = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(', ');
process.stdout.write(
  `scan lookup GET /v1/public/ip (inject, ${N} addresses a round, off and on taking turns lookup by lookup, ${ROUNDS} rounds, medians): ` +
    `off ${median(rounds.map((x) => x.off)).toFixed(0)} µs; ` +
    `on, stored result ${median(rounds.map((x) => x.stored)).toFixed(0)} µs (${median(ratios('stored')).toFixed(2)}× off; rounds ${list(ratios('stored'))}); ` +
    `on, first lookup ${median(rounds.map((x) => x.first)).toFixed(0)} µs (${median(ratios('first')).toFixed(2)}× off; rounds ${list(ratios('first'))})\n`,
);
