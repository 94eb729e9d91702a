/**
 * What the benchmarks that drive a real `netrep serve` share: a dataset directory (the lookup
 * bench's snapshot when there is one, else a fresh npm build), random real addresses, waiting
 * for a child to listen, a process's RSS, and reading wrk's report.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../src/core/clock.ts';
import { seededRandom } from '../src/core/random.ts';
import {
  buildDataset,
  formatAddr,
  listDatasetVersions,
  npmDataDir,
  parseAsnCsv,
} from '../src/dataset/index.ts';

/** `dataDir` with a snapshot in it: the lookup bench's (linked) when there is one, else built now. */
export async function benchDataDir(dataDir: string): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const lookupData = path.join(tmpdir(), 'netrep-bench-lookup', 'data');
  if (listDatasetVersions(lookupData).length > 0) {
    symlinkSync(path.join(lookupData, 'datasets'), path.join(dataDir, 'datasets'));
  } else {
    process.stderr.write('building a snapshot from the npm packages...\n');
    await buildDataset({ dataDir, clock: systemClock });
  }
}

/** `count` random addresses inside ip-location-db ASN rows (seeded), one in five IPv6. */
export function realAddresses(count: number, seed: number): string[] {
  const rand = seededRandom(seed);
  const rows = {
    4: parseAsnCsv(readFileSync(path.join(npmDataDir(), 'asn/asn-ipv4.csv'))).rows,
    6: parseAsnCsv(readFileSync(path.join(npmDataDir(), 'asn/asn-ipv6.csv'))).rows,
  };
  const ips: string[] = [];
  while (ips.length < count) {
    const family = rand() < 0.2 ? 6 : 4;
    const list = rows[family];
    const r = list[Math.floor(rand() * list.length)];
    if (!r) continue;
    ips.push(formatAddr(family, r.start + (BigInt(Math.floor(rand() * 2 ** 52)) % (r.end - r.start + 1n))));
  }
  return ips;
}

/** The URL a child prints as `listening on http://…` (stdout or stderr), within two minutes. */
export function waitListening(child: ChildProcess, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${out}`)), 120_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s"]+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}:\n${out}`)));
  });
}

/** Resident set size of a process, in MB. */
export function rssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** What `wrk --latency` printed: requests, rate, p50 and p99 (ms), answers that were not 2xx. */
export function parseWrk(out: string): {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
} {
  const ms = (text: string) => {
    const m = /([\d.]+)(us|ms|s)\b/.exec(text);
    if (!m) return Number.NaN;
    const v = Number(m[1]);
    return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
  };
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p50: ms(/\n\s+50%\s+(\S+)/.exec(out)?.[1] ?? ''),
    p99: ms(/\n\s+99%\s+(\S+)/.exec(out)?.[1] ?? ''),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
  };
}
