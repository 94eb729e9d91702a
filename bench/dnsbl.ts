/**
 * DNSBL benchmark: 1,000,000 listings loaded into the listing index (time, RSS), then dnsperf
 * against netrep and against rbldnsd serving the same zone (exported by netrep) in the same run:
 * maximum queries per second for each and their ratio, then p50/p99 latency at a fixed 20,000 qps.
 *
 *   node --import tsx bench/dnsbl.ts        (DNSBL_BENCH_SECONDS=10 by default)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { intToIpv4 } from '../src/core/ip.ts';
import type { DnsblListing } from '../src/dnsbl/index.ts';
import { createListingIndex, ipToQueryName, startDnsblServer, writeZoneExport } from '../src/dnsbl/index.ts';
import { startRbldnsd, tempDir } from '../test/helpers/dnsbl-tools.ts';

const ZONE = 'bl.netrep.test';
const LISTINGS = Number(process.env.DNSBL_BENCH_LISTINGS ?? 1_000_000);
const SECONDS = Number(process.env.DNSBL_BENCH_SECONDS ?? 10);
const FIXED_QPS = 20_000;
const QUERY_NAMES = 200_000;
const url = (ip: string) => `http://127.0.0.1:8080/v1/public/blocklist/ip/${ip}`;
const CODES = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
const REASONS = ['spam source', 'malware C2', 'phishing site'];

/** Deterministic xorshift32, so every run benchmarks the same zone. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

/** Listed addresses: unique uint32 in 1.0.0.0-223.255.255.255 outside 127/8. */
function listedInts(count: number): Uint32Array {
  const next = rng(5782);
  const seen = new Set<number>();
  const out = new Uint32Array(count);
  let i = 0;
  while (i < count) {
    const n = 0x01000000 + (next() % 0xdf000000);
    if (n >>> 24 === 127 || seen.has(n)) continue;
    seen.add(n);
    out[i++] = n;
  }
  return out;
}

function* listings(ints: Uint32Array): Generator<DnsblListing> {
  for (let i = 0; i < ints.length; i++) {
    const k = i % 3;
    yield { ip: intToIpv4(ints[i] as number), returnCode: CODES[k] as string, reason: REASONS[k] as string };
  }
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

function line(label: string, fields: Record<string, string | number>): void {
  const text = Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  process.stdout.write(`dnsbl ${label.padEnd(22)} ${text}\n`);
}

interface PerfResult {
  qps: number;
  lost: number;
  completed: number;
  p50Ms: number;
  p99Ms: number;
}

/** Runs dnsperf with its output in a file (so reading it does not compete with the server). */
async function dnsperf(
  port: number,
  queryFile: string,
  outFile: string,
  extra: string[],
): Promise<PerfResult> {
  const fd = fs.openSync(outFile, 'w');
  const args = ['-s', '127.0.0.1', '-p', String(port), '-d', queryFile, '-l', String(SECONDS), ...extra];
  const child = spawn('dnsperf', args, { stdio: ['ignore', fd, fd] });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  fs.closeSync(fd);
  const text = fs.readFileSync(outFile, 'utf8');
  if (code !== 0) throw new Error(`dnsperf failed (${code}): ${text.slice(-2000)}`);
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? Number.NaN);
  const latencies: number[] = [];
  for (const m of text.matchAll(/^> \S+ \S+ \S+ (\d+\.\d+)$/gm)) latencies.push(Number(m[1]) * 1000);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? Number.NaN;
  return {
    qps: num(/Queries per second:\s+([\d.]+)/),
    completed: num(/Queries completed:\s+(\d+)/),
    lost: num(/Queries lost:\s+(\d+)/),
    p50Ms: pct(50),
    p99Ms: pct(99),
  };
}

async function main(): Promise<void> {
  const tmp = tempDir('netrep-dnsbl-bench-');
  try {
    const ints = listedInts(LISTINGS);
    const rssBefore = process.memoryUsage().rss;
    const t0 = performance.now();
    const index = createListingIndex();
    index.replaceAll(listings(ints));
    const loadMs = performance.now() - t0;
    globalThis.gc?.();
    const rss = process.memoryUsage().rss;
    line('load', {
      listings: index.size,
      load_ms: loadMs.toFixed(0),
      rss_mb: mb(rss),
      rss_before_mb: mb(rssBefore),
      target: `<2000ms,<300MB ${loadMs < 2000 && rss < 300 * 1024 * 1024 ? 'OK' : 'MISSED'}`,
    });

    // The same zone for rbldnsd, exported by netrep.
    const zoneFile = path.join(tmp.dir, 'zone.rbldnsd');
    const out = fs.createWriteStream(zoneFile);
    const te = performance.now();
    await writeZoneExport(listings(ints), { format: 'rbldnsd', zone: ZONE, lookupUrl: url, now: 0 }, out);
    await new Promise<void>((r) => out.end(() => r()));
    const exportMs = performance.now() - te;
    const rbldnsd = await startRbldnsd(ZONE, zoneFile, 120_000);
    line('rbldnsd load', {
      export_ms: exportMs.toFixed(0),
      file_mb: mb(fs.statSync(zoneFile).size),
      rbldnsd_ready_ms: rbldnsd.startMs.toFixed(0),
    });

    // Queries: half listed, half unlisted neighbours, A records, in shuffled order.
    const next = rng(42);
    const names: string[] = [];
    for (let i = 0; i < QUERY_NAMES; i++) {
      const listed = ints[next() % ints.length] as number;
      const ip = i % 2 === 0 ? intToIpv4(listed) : intToIpv4((listed ^ 0x80) >>> 0);
      names.push(`${ipToQueryName(ip, ZONE)} A`);
    }
    const queryFile = path.join(tmp.dir, 'queries.txt');
    fs.writeFileSync(queryFile, `${names.join('\n')}\n`);

    const server = await startDnsblServer({ zone: ZONE, listen: '127.0.0.1:0', index, lookupUrl: url });
    try {
      const maxArgs = ['-c', '8', '-q', '500'];
      const perfOut = path.join(tmp.dir, 'dnsperf.out');
      const rb = await dnsperf(rbldnsd.port, queryFile, perfOut, maxArgs);
      const nr = await dnsperf(server.udpPort, queryFile, perfOut, maxArgs);
      line('max qps rbldnsd', { qps: rb.qps.toFixed(0), completed: rb.completed, lost: rb.lost });
      line('max qps netrep', { qps: nr.qps.toFixed(0), completed: nr.completed, lost: nr.lost });
      const ratio = nr.qps / rb.qps;
      line('max qps ratio', {
        netrep_over_rbldnsd: ratio.toFixed(2),
        target: `>=0.45 ${ratio >= 0.45 ? 'OK' : 'MISSED'}`,
      });

      const fixedArgs = ['-c', '8', '-q', '500', '-Q', String(FIXED_QPS), '-v'];
      const rbFixed = await dnsperf(rbldnsd.port, queryFile, perfOut, fixedArgs);
      const nrFixed = await dnsperf(server.udpPort, queryFile, perfOut, fixedArgs);
      for (const [name, r] of [
        ['rbldnsd', rbFixed],
        ['netrep', nrFixed],
      ] as const) {
        line(`latency@20k ${name}`, {
          qps: r.qps.toFixed(0),
          p50_ms: r.p50Ms.toFixed(3),
          p99_ms: r.p99Ms.toFixed(3),
          lost: r.lost,
          ...(name === 'netrep' ? { target: `p99<5ms ${r.p99Ms < 5 ? 'OK' : 'MISSED'}` } : {}),
        });
      }
    } finally {
      await server.close();
      await rbldnsd.stop();
    }
  } finally {
    tmp.remove();
  }
}

await main();
