/**
 * The anonymous lookup's latency with the service scan off and on (issue #34: "a lookup's latency
 * does not change with scanning on"): GET /v1/public/ip/{ip} injected into the real app on SQLite
 * over the fixture dataset, the same addresses in the same run, each client its own address (the
 * public bucket). On, every address already holds a stored result (the steady state: the
 * in-memory copy), and separately a first lookup that queues. Only 127.0.0.0/8 can be scanned
 * (everything else excluded); the scans go to a closed port. Run: npm run bench -- scan
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

const addr = (i: number) => `127.0.${(i >> 8) & 255}.${i & 255}`;
let clients = 0;
const client = () => {
  clients++;
  return `100.${(clients >> 16) & 255}.${(clients >> 8) & 255}.${clients & 255}`;
};

/** Median microseconds of N lookups of addr(0..N-1). */
async function measure(app: App): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint();
    const r = await app.http.inject({
      method: 'GET',
      url: `/v1/public/ip/${addr(i)}`,
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
await measure(off); // warm-up
const offUs = await measure(off);
await off.close();
const port = await closedPort();
const on = await start(dataDir, {
  scan: true,
  scanAllowLoopback: true,
  scanExclude: [...ALL_BUT_LOOPBACK],
  scanPorts: [`${port}/http`],
  scanRate: 1_000_000,
  scanContact: 'mailto:bench@example.test',
});
const queueUs = await measure(on); // first lookups: one read and one queued row each
while ((await on.scanWorker.runOnce()) > 0);
await measure(on); // the in-memory copies of the stored results
const onUs = await measure(on);
await on.close();
fs.rmSync(dataDir, { recursive: true, force: true });
process.stdout.write(
  `scan lookup GET /v1/public/ip (inject, ${N} addresses, median): off ${offUs.toFixed(0)} µs; on, stored result ${onUs.toFixed(0)} µs (${(onUs / offUs).toFixed(2)}× off); on, first lookup queuing ${queueUs.toFixed(0)} µs (${(queueUs / offUs).toFixed(2)}× off)\n`,
);
