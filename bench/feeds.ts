/**
 * Feed build benchmark: time and peak RSS to build all six feeds in all eight formats from
 * 1,000,000 rows, against a reference measured in the same run (the same rows written as plain
 * lines with one writeFile of a joined string). Each case runs in its own process so that its
 * RSS high-water mark (getrusage maxrss) is its own; each also reports its CPU time (user + system),
 * which a machine shared with other work inflates less than wall time. The rows case only generates
 * the input rows: what of the build's CPU time is the benchmark's own input, not the builder's.
 * Run: npm run bench -- feeds
 *
 * Old against new builder in one run: `node --import tsx bench/feeds.ts --against <checkout> [rounds]`
 * alternates the build case of this checkout and of another one (its bench/feeds.ts), round by round.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom as prng } from '../src/core/random.ts';
import { type FeedName, type FeedRow, writeFeedSnapshot } from '../src/feeds/index.ts';

const TOTAL = 1_000_000;
/** Issue #35 item 2: all feeds in at most 3 s, with peak RSS no higher than the 323 MB of 2026-11-23 (eaeef8d). */
const GOAL_SECONDS = 3;
const GOAL_RSS_MB = 323;
/** Share of the rows per feed (sums to 1). */
const SHARES: [FeedName, number][] = [
  ['datacenter_ranges', 0.4],
  ['vpn_proxy', 0.2],
  ['trap_confirmed', 0.2],
  ['tor_exits', 0.1],
  ['ai_crawlers', 0.05],
  ['asn_wide_blocked', 0.05],
];

/** Rows of one feed, generated lazily: 80% IPv4, half of them single addresses. */
function* rowsOf(feed: FeedName, count: number, seed: number): Generator<FeedRow> {
  const rnd = prng(seed);
  const byte = () => Math.floor(rnd() * 256);
  const word = () => Math.floor(rnd() * 65536).toString(16);
  for (let i = 0; i < count; i++) {
    let network: string;
    if (rnd() < 0.8) {
      const host = `${1 + Math.floor(rnd() * 222)}.${byte()}.${byte()}.${byte()}`;
      network = rnd() < 0.5 ? host : `${host}/${16 + Math.floor(rnd() * 15)}`;
    } else {
      const host = `2${word().padStart(3, '0').slice(0, 3)}:${word()}:${word()}:${word()}::${word()}`;
      network = rnd() < 0.5 ? host : `${host}/${32 + Math.floor(rnd() * 33)}`;
    }
    const row: FeedRow = {
      network,
      kind: feed,
      source: 'bench',
      first_seen: '2026-01-01T00:00:00Z',
      last_seen: '2026-01-02T00:00:00Z',
    };
    if (feed === 'ai_crawlers') row.brand = rnd() < 0.5 ? 'OpenAI' : 'Google';
    if (rnd() < 0.5) row.asn = 1 + Math.floor(rnd() * 400000);
    yield row;
  }
}

function plan(total: number): [FeedName, number, number][] {
  return SHARES.map(([feed, share], i) => [feed, Math.round(total * share), 1000 + i]);
}

async function buildCase(total: number, dir: string): Promise<void> {
  for (const [feed, count, seed] of plan(total)) {
    await writeFeedSnapshot({
      dir,
      feed,
      date: '2026-01-02',
      rows: rowsOf(feed, count, seed),
      generatedAt: '2026-01-02T00:05:00.000Z',
      datasetVersion: 1,
    });
  }
}

function rowsCase(total: number): void {
  let n = 0;
  for (const [feed, count, seed] of plan(total)) for (const _ of rowsOf(feed, count, seed)) n++;
  if (n !== total) throw new Error(`rows case: ${n} rows, not ${total}`);
}

async function referenceCase(total: number, dir: string): Promise<void> {
  const lines: string[] = [];
  for (const [feed, count, seed] of plan(total))
    for (const r of rowsOf(feed, count, seed)) lines.push(r.network);
  await writeFile(path.join(dir, 'reference.txt'), `${lines.join('\n')}\n`);
}

async function runCase(kind: string, total: number, dir: string): Promise<void> {
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  if (kind === 'build') await buildCase(total, dir);
  else if (kind === 'rows') rowsCase(total);
  else await referenceCase(total, dir);
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  // ru_maxrss is in kilobytes on Linux.
  process.stdout.write(
    JSON.stringify({
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
    }),
  );
}

/** Wall time, CPU time (user + system, all threads) and RSS high-water mark of one case. */
interface Measure {
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
}

/** One case in its own process, from this benchmark file or `script` (another checkout's). */
function measure(kind: string, total: number, script = fileURLToPath(import.meta.url)): Measure {
  const dir = mkdtempSync(path.join(tmpdir(), 'netrep-bench-feeds-'));
  try {
    const r = spawnSync(process.execPath, ['--import', 'tsx', script, '--case', kind, String(total), dir], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    if (r.status !== 0) throw new Error(`bench case ${kind} failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as Measure;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (m: Measure) =>
  `time ${m.seconds.toFixed(2)} s (CPU ${m.cpuSeconds.toFixed(2)} s), peak RSS ${m.peakRssMb.toFixed(0)} MB`;

const range = (values: number[], digits: number) =>
  `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`;

/** This checkout's builder and another's, alternating round by round; each round's numbers and the ranges. */
function against(checkout: string, rounds: number): void {
  const contenders = [
    { name: 'this checkout', script: fileURLToPath(import.meta.url), runs: [] as Measure[] },
    { name: checkout, script: path.resolve(checkout, 'bench/feeds.ts'), runs: [] as Measure[] },
  ];
  for (let round = 1; round <= rounds; round++) {
    const ratio: number[] = [];
    for (const c of contenders) {
      const m = measure('build', TOTAL, c.script);
      c.runs.push(m);
      ratio.push(m.cpuSeconds);
      console.log(
        `round ${round}, ${c.name}: ${fmt(m)}, load average ${(loadavg()[0] as number).toFixed(1)}`,
      );
    }
    console.log(
      `round ${round}: CPU time ${((ratio[0] as number) / (ratio[1] as number)).toFixed(2)}x the other's`,
    );
  }
  for (const c of contenders)
    console.log(
      `${c.name}: CPU ${range(
        c.runs.map((m) => m.cpuSeconds),
        2,
      )} s, peak RSS ${range(
        c.runs.map((m) => m.peakRssMb),
        0,
      )} MB, time ${range(
        c.runs.map((m) => m.seconds),
        2,
      )} s (${rounds} rounds, ${cpus().length} CPUs)`,
    );
}

async function main(): Promise<void> {
  const other = process.argv.indexOf('--against');
  if (other !== -1) {
    against(process.argv[other + 1] as string, Number(process.argv[other + 2] ?? 3));
    return;
  }
  const at = process.argv.indexOf('--case');
  if (at !== -1) {
    await runCase(
      process.argv[at + 1] as string,
      Number(process.argv[at + 2]),
      process.argv[at + 3] as string,
    );
    return;
  }
  const loadBefore = loadavg()[0] as number;
  const build = measure('build', TOTAL);
  const reference = measure('reference', TOTAL);
  const input = measure('rows', TOTAL);
  const quarter = measure('build', TOTAL / 4);
  const loadAfter = loadavg()[0] as number;
  console.log(`feeds build, 6 feeds x 8 formats, ${TOTAL} rows: ${fmt(build)}`);
  console.log(
    `feeds reference, plain lines + one writeFile of a joined string, ${TOTAL} rows: ${fmt(reference)}`,
  );
  console.log(
    `feeds ratio build/reference: time ${(build.seconds / reference.seconds).toFixed(1)}x, ` +
      `CPU time ${(build.cpuSeconds / reference.cpuSeconds).toFixed(1)}x, ` +
      `peak RSS ${(build.peakRssMb / reference.peakRssMb).toFixed(2)}x`,
  );
  // The builder's own CPU time: the build's, less generating the rows it reads (the rows case).
  const builderCpu = build.cpuSeconds - input.cpuSeconds;
  console.log(
    `feeds input, generating the ${TOTAL} rows only: CPU ${input.cpuSeconds.toFixed(2)} s; ` +
      `the build's CPU time without it: ${builderCpu.toFixed(2)} s`,
  );
  const met = build.seconds <= GOAL_SECONDS && build.peakRssMb <= GOAL_RSS_MB;
  const metCpu = builderCpu <= GOAL_SECONDS && build.peakRssMb <= GOAL_RSS_MB;
  console.log(
    `feeds goal <= ${GOAL_SECONDS} s with peak RSS <= ${GOAL_RSS_MB} MB: ${met ? 'met' : 'NOT met'} in wall time, ` +
      `${metCpu ? 'met' : 'NOT met'} in the builder's CPU time ` +
      `(${build.seconds.toFixed(2)} s, CPU ${builderCpu.toFixed(2)} s, ${build.peakRssMb.toFixed(0)} MB; ` +
      `1-minute load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after, ${cpus().length} CPUs)`,
  );
  console.log(
    `feeds memory bound: peak RSS ${quarter.peakRssMb.toFixed(0)} MB at ${TOTAL / 4} rows vs ` +
      `${build.peakRssMb.toFixed(0)} MB at ${TOTAL} rows (x${(build.peakRssMb / quarter.peakRssMb).toFixed(2)} for 4x rows)`,
  );
}

await main();
