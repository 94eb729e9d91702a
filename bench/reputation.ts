/**
 * Reputation throughput for IPs with rich evidence, on SQLite and PostgreSQL: 200 public IPs,
 * each with 40 evidence events over 90 days (some synthetic), 12 telemetry observations,
 * listing history, listed neighbours, an FCrDNS result, dataset facts and 30 days of score
 * history. Reference measured in the same run on the same app: GET /healthz. Two drivers:
 *
 * - over HTTP (the goal lines): the app listens on 127.0.0.1 and `wrk` in another process (one
 *   thread, 16 connections) sends the requests, each from its own client address through
 *   X-Forwarded-For (NETREP_TRUSTED_PROXIES=127.0.0.1, as behind a reverse proxy), so every
 *   request meets the anonymous limits of a new client. Latency is what wrk saw; CPU is this
 *   process's (the server's) per request.
 * - in process (inject, 16 in flight): every contender, through the real Fastify app without a
 *   socket. light-my-request's client side runs in the same process and is counted: it turns each
 *   body into a Buffer and back, which for a body of 4 KB or more (a reputation answer) is an
 *   ArrayBuffer of its own per request; a static 4 KB body measured 0.44-0.49× of /healthz this
 *   way (a one-off experiment with a temporary route), so these ratios say little about what a
 *   client over a socket sees.
 *
 * Both include access control, limits, validation, scoring, the history write and serialization.
 * Run: node --import tsx bench/reputation.ts
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createManualClock, DAY_MS, toIso } from '../src/core/clock.ts';
import type { IntelFacts } from '../src/reputation/index.ts';
import { probeBackends } from '../test/helpers/backends.ts';
import { createTestStore, type StoreKind } from '../test/helpers/stores.ts';
import { parseWrk } from './served.ts';

const IPS = 200;
const IN_FLIGHT = 16;
const DURATION_MS = 2000;
const ROUNDS = 3;
// The warm-up route allows a key 60 requests a minute, and this clock stands still: 6,000 keys
// take 360,000 requests, three rounds of 2 s at up to 60,000 req/s (2,000 ran out at 18,700).
const WARMUP_KEYS = 6000;
const NOW = Date.parse('2026-06-15T12:00:00Z');

const WRK = '/usr/bin/wrk';

/** Issue 18: single answers against /healthz, p99 at this concurrency, batch throughput (over HTTP). */
const GOALS: Record<StoreKind, { single: number; p99Ms: number | null; batchIps: number }> = {
  sqlite: { single: 0.5, p99Ms: 5, batchIps: 20_000 },
  postgres: { single: 0.3, p99Ms: null, batchIps: 10_000 },
};

const ipOf = (i: number) => `45.${40 + Math.floor(i / 50)}.${i % 50}.10`;

let client = 0;
const nextClient = () => {
  client++;
  return `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`;
};

interface Result {
  rps: number;
  p50: number;
  p99: number;
  /** Process CPU time (user + system) per request, in microseconds: steadier than req/s on a shared VM. */
  cpuUs: number;
}

async function drive(send: (i: number, worker: number) => Promise<number>): Promise<Result> {
  const latencies: number[] = [];
  let n = 0;
  const end = performance.now() + DURATION_MS;
  const loop = async (worker: number) => {
    while (performance.now() < end) {
      const i = n++;
      const t0 = performance.now();
      const status = await send(i, worker);
      if (status !== 200) throw new Error(`status ${status} at request ${i}`);
      latencies.push(performance.now() - t0);
    }
  };
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: IN_FLIGHT }, (_, worker) => loop(worker)));
  const cpu = process.cpuUsage(cpu0);
  const elapsed = performance.now() - start;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    rps: (latencies.length * 1000) / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    cpuUs: (cpu.user + cpu.system) / Math.max(1, latencies.length),
  };
}

/**
 * `wrk` (one thread, IN_FLIGHT connections, DURATION_MS) against this process's listening app,
 * with a Lua script that makes each request; fails on any answer that is not 2xx. Asynchronous,
 * so the app in this process answers while wrk runs; CPU is this process's.
 */
function driveWrk(url: string, script: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const cpu0 = process.cpuUsage();
    const args = ['-t1', `-c${IN_FLIGHT}`, `-d${DURATION_MS / 1000}s`, '--latency', '-s', script, url];
    execFile(WRK, args, { encoding: 'utf8' }, (err, out) => {
      if (err) return reject(err);
      const cpu = process.cpuUsage(cpu0);
      const { requests, non2xx, ...report } = parseWrk(out);
      if (non2xx > 0) return reject(new Error(`wrk ${url}: ${non2xx} answers were not 2xx`));
      resolve({ ...report, cpuUs: (cpu.user + cpu.system) / Math.max(1, requests) });
    });
  });
}

/** `post` on an inspector session of this process. */
function inspectorSession() {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  /** Ends with `method`, writes the `profile` it answers as JSON. */
  const stop = async (method: string, file: string) => {
    const { profile } = (await post(method)) as { profile: unknown };
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
  return { post, stop };
}

/** A CPU profile of this process from now until stop (node:inspector), written as JSON. */
async function startProfile(): Promise<{ stop(file: string): Promise<void> }> {
  const { post, stop } = inspectorSession();
  await post('Profiler.enable');
  await post('Profiler.start');
  return { stop: (file) => stop('Profiler.stop', file) };
}

/**
 * A sampling heap profile from now until stop: every allocation sampled (one in 4 KB), kept
 * whether or not it was collected since, so it shows what the young generation is fed.
 */
async function startHeapSampling(): Promise<{ stop(file: string): Promise<void> }> {
  const { post, stop } = inspectorSession();
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return { stop: (file) => stop('HeapProfiler.stopSampling', file) };
}

const KINDS = ['pristine_trap', 'recycled_trap', 'typo_trap', 'smtp_honeypot'];
const f = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => n.toFixed(2);

type App = Awaited<ReturnType<typeof createApp>>;
type Services = App['services'];

interface SeedContext {
  app: App;
  clock: ReturnType<typeof createManualClock>;
  admin: string;
  tele: string;
  blocklist: NonNullable<Services['blocklist']>;
  reputation: NonNullable<Services['reputation']>;
}

/**
 * One bench address's facts: 40 evidence events and 12 telemetry observations over the API,
 * a listing history (every fourth listed and delisted, every eighth listed again), a listed
 * neighbour in its /24 and an FCrDNS record.
 */
async function seedAddress(ctx: SeedContext, i: number): Promise<void> {
  const { app, clock, admin, tele, blocklist, reputation } = ctx;
  const ip = ipOf(i);
  const events = Array.from({ length: 40 }, (_, k) => ({
    ip,
    kind: KINDS[k % 4],
    observed_at: toIso(NOW - ((k * 2.3 + i) % 90) * DAY_MS),
    synthetic: k % 7 === 0,
    source: 'bench',
  }));
  await app.http.inject({
    method: 'POST',
    url: '/v1/admin/evidence',
    headers: { 'x-api-key': admin },
    payload: { events },
  });
  const observations = Array.from({ length: 12 }, (_, k) => ({
    ip,
    bounce_rate: (k % 8) / 100,
    complaint_rate: (k % 3) / 1000,
    volume_24h: 1000 * k,
    observed_at: toIso(NOW - k * 3 * 3_600_000),
  }));
  await app.http.inject({
    method: 'POST',
    url: '/v1/email/telemetry/ingest',
    headers: { 'x-api-key': tele },
    payload: { observations },
  });
  if (i % 4 === 0) {
    clock.set(NOW - 20 * DAY_MS);
    await blocklist.list({ ip, type: 'spam', reason: 'bench' });
    clock.set(NOW - 10 * DAY_MS);
    await blocklist.delist(ip, { reason: 'bench' });
    clock.set(NOW);
    if (i % 8 === 0) await blocklist.list({ ip, type: 'spam', reason: 'bench' });
  }
  await blocklist.list({
    ip: ip.replace(/\.10$/, `.${100 + (i % 5)}`),
    type: 'spam',
    reason: 'neighbour',
  });
  await reputation.recordFcrdns({
    ip,
    ptrHostname: `mta${i}.example.test`,
    forwardMatch: i % 3 !== 0,
    forwardIps: [ip],
    lastCheckedAt: NOW - DAY_MS,
    lastObservedAt: NOW - 3_600_000,
  });
}

/** A wrk script in `work`: each request names a new client (the counter, as 10.x.y.z). */
function wrkScript(work: string, name: string, make: string): string {
  const file = path.join(work, `${name}.lua`);
  writeFileSync(
    file,
    `counter = 0
client = function()
  counter = counter + 1
  return string.format("10.%d.%d.%d", math.floor(counter / 65536) % 256, math.floor(counter / 256) % 256, counter % 256)
end
request = function()
${make}
end
`,
  );
  return file;
}

/** The wrk scripts of the HTTP contenders. */
function writeWrkScripts(work: string, batchIps: string[]) {
  const wrkIp = `string.format("45.%d.%d.10", 40 + math.floor((counter % ${IPS}) / 50), counter % 50)`;
  return {
    // The same request shape as the answers' (a client address in X-Forwarded-For).
    healthz: wrkScript(
      work,
      'healthz',
      '  return wrk.format("GET", "/healthz", { ["X-Forwarded-For"] = client() })',
    ),
    single: wrkScript(
      work,
      'single',
      `  local from = client()
  return wrk.format("GET", "/v1/email/ip/" .. ${wrkIp} .. "/reputation", { ["X-Forwarded-For"] = from })`,
    ),
    batch: wrkScript(
      work,
      'batch',
      `  return wrk.format("POST", "/v1/email/reputation/batch",
    { ["X-Forwarded-For"] = client(), ["Content-Type"] = "application/json" },
    ${JSON.stringify(JSON.stringify({ ips: batchIps }))})`,
    ),
  };
}

type Rounds = Record<string, Result[]>;

/**
 * Contenders take turns round by round so each meets the same moments of a shared machine;
 * the best round of each counts, and every round is listed.
 */
async function runRounds(
  contenders: Record<string, () => Promise<Result>>,
  kind: StoreKind,
): Promise<Rounds> {
  const rounds: Rounds = {};
  // REPUTATION_BENCH_ONLY=single,healthz runs only those contenders (profiling).
  const only = process.env['REPUTATION_BENCH_ONLY']?.split(',');
  // REPUTATION_BENCH_CPUPROFILE=file.cpuprofile: a V8 CPU profile of the rounds alone (no setup).
  const profileTo = process.env['REPUTATION_BENCH_CPUPROFILE'];
  const profiler = profileTo ? await startProfile() : null;
  // REPUTATION_BENCH_HEAPPROFILE=file: a sampling heap profile of what the rounds allocate.
  const heapTo = process.env['REPUTATION_BENCH_HEAPPROFILE'];
  const heap = heapTo ? await startHeapSampling() : null;
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, run] of Object.entries(contenders)) {
      if (only && !only.includes(name)) continue;
      const list = rounds[name] ?? [];
      list.push(await run());
      rounds[name] = list;
    }
  }
  if (heap && heapTo) await heap.stop(heapTo.replace(/(\.heapprofile)?$/, `-${kind}.heapprofile`));
  if (profiler && profileTo)
    await profiler.stop(profileTo.replace(/(\.cpuprofile)?$/, `-${kind}.cpuprofile`));
  return rounds;
}

/** Reading the rounds: the best of each, the spread, CPU per request, ratios per round. */
function roundReader(rounds: Rounds) {
  return {
    best: (name: string): Result =>
      (rounds[name] ?? []).reduce((a, b) => (b.rps > a.rps ? b : a), { rps: 0, p50: 0, p99: 0, cpuUs: 0 }),
    spread: (name: string, scale = 1) =>
      `rounds ${(rounds[name] ?? []).map((r) => f(r.rps * scale)).join(' ')}`,
    // CPU per request, least of the rounds (the run least disturbed by other work on the machine).
    cpuOf: (name: string) =>
      `CPU ${Math.round(Math.min(...(rounds[name] ?? []).map((r) => r.cpuUs)))} µs/request`,
    ratios: (name: string, reference: string, scale = 1) =>
      (rounds[name] ?? [])
        .map((r, i) => ((r.rps * scale) / (rounds[reference]?.[i]?.rps ?? Number.NaN)).toFixed(3))
        .join(' '),
    // Lines only for the contenders that ran (REPUTATION_BENCH_ONLY).
    ran: (name: string) => (rounds[name]?.length ?? 0) > 0,
  };
}

type RoundReader = ReturnType<typeof roundReader>;

/** The reference, single and batch lines of one driver (`http:` or in process). */
function reportCore(rd: RoundReader, say: (line: string) => void, prefix: '' | 'http:', factors: string) {
  const { best, spread, cpuOf, ratios, ran } = rd;
  const healthz = best(`${prefix}healthz`);
  const single = best(`${prefix}single`);
  const batch = best(`${prefix}batch`);
  if (ran(`${prefix}healthz`))
    say(
      `${prefix}reference GET /healthz ${f(healthz.rps)} req/s, p99 ${ms(healthz.p99)} ms, ${cpuOf(`${prefix}healthz`)} (${spread(`${prefix}healthz`)})`,
    );
  if (ran(`${prefix}single`))
    say(
      `${prefix}GET /v1/email/ip/{ip}/reputation (${factors}) ${f(single.rps)} req/s, p50 ${ms(single.p50)} ms, p99 ${ms(single.p99)} ms, ${cpuOf(`${prefix}single`)}; ratio to /healthz ${(single.rps / healthz.rps).toFixed(3)} (per round ${ratios(`${prefix}single`, `${prefix}healthz`)})`,
    );
  if (ran(`${prefix}batch`))
    say(
      `${prefix}POST /v1/email/reputation/batch (100 IPs) ${f(batch.rps)} req/s = ${f(batch.rps * 100)} IPs/s, p99 ${ms(batch.p99)} ms, ${cpuOf(`${prefix}batch`)} (${spread(`${prefix}batch`, 100)} IPs/s)`,
    );
  return { healthz, single, batch };
}

/** The lines of the warm-up, pool and ingest contenders (in process). */
function reportOthers(rd: RoundReader, say: (line: string) => void, healthzRps: number): void {
  const { best, spread, cpuOf, ratios, ran } = rd;
  const warm = best('warmup');
  const pool = best('pool');
  const tIngest = best('telemetryIngest');
  const eIngest = best('evidenceIngest');
  if (ran('warmup'))
    say(
      `GET /v1/email/ip/{ip}/warmup ${f(warm.rps)} req/s, p99 ${ms(warm.p99)} ms, ${cpuOf('warmup')}; ratio to /healthz ${(warm.rps / healthzRps).toFixed(3)} (per round ${ratios('warmup', 'healthz')})`,
    );
  if (ran('pool'))
    say(
      `POST /v1/email/pool/classify (50 IPs) ${f(pool.rps)} req/s = ${f(pool.rps * 50)} IPs/s, p99 ${ms(pool.p99)} ms (${spread('pool', 50)} IPs/s)`,
    );
  if (ran('telemetryIngest'))
    say(
      `ingest telemetry (100 per request) ${f(tIngest.rps * 100)} observations/s (${spread('telemetryIngest', 100)})`,
    );
  if (ran('evidenceIngest'))
    say(
      `ingest evidence (100 per request) ${f(eIngest.rps * 100)} events/s (${spread('evidenceIngest', 100)})`,
    );
}

/** Issue 18's goals, on the best round of each contender over HTTP (in process without wrk). */
function goalLine(
  rd: RoundReader,
  kind: StoreKind,
  overHttp: boolean,
  core: { healthz: Result; single: Result; batch: Result },
): string | null {
  const prefix = overHttp ? 'http:' : '';
  const { healthz, single, batch } = core;
  const goals = GOALS[kind];
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const singleRatio = single.rps / healthz.rps;
  const judged: string[] = [];
  if (rd.ran(`${prefix}single`) && rd.ran(`${prefix}healthz`)) {
    judged.push(
      `single ≥ ${goals.single}× /healthz: ${singleRatio.toFixed(3)}× ${met(singleRatio >= goals.single)}`,
    );
    if (goals.p99Ms !== null)
      judged.push(`p99 < ${goals.p99Ms} ms: ${ms(single.p99)} ms ${met(single.p99 < goals.p99Ms)}`);
  }
  if (rd.ran(`${prefix}batch`))
    judged.push(
      `batch ≥ ${f(goals.batchIps)} IPs/s: ${f(batch.rps * 100)} ${met(batch.rps * 100 >= goals.batchIps)}`,
    );
  return judged.length > 0
    ? `goal (${overHttp ? 'over HTTP' : 'in process'}) ${judged.join('; goal ')}`
    : null;
}

/** Prints the bench's lines for one store. */
function reportRounds(kind: StoreKind, rounds: Rounds, overHttp: boolean, factorCount: number): void {
  const rd = roundReader(rounds);
  const say = (line: string) => console.log(`reputation ${kind}: ${line}`);
  const factors = `${factorCount} factors, 30-day history`;
  if (overHttp) {
    say(
      `over HTTP: wrk (1 thread, ${IN_FLIGHT} connections, another process; a new client per request via X-Forwarded-For), best of ${ROUNDS} rounds of ${DURATION_MS / 1000} s; CPU is the server's`,
    );
  } else say(`over HTTP: skipped (${WRK} not found: apt-get install wrk); goals judged in process`);
  const http = reportCore(rd, say, 'http:', factors);
  say(
    `in process: inject, ${IN_FLIGHT} in flight, light-my-request's client side counted in the same process`,
  );
  const inProcess = reportCore(rd, say, '', factors);
  reportOthers(rd, say, inProcess.healthz.rps);
  const goal = goalLine(rd, kind, overHttp, overHttp ? http : inProcess);
  if (goal !== null) say(goal);
}

async function benchStore(kind: StoreKind): Promise<void> {
  const handle = await createTestStore(kind);
  const clock = createManualClock(NOW);
  const intel: IntelFacts = {
    datacenter: (ip) => ip.endsWith('.10'),
    geoChangeCount90d: (ip) => ip.length % 3,
  };
  const config = loadConfig(
    {
      dataDir: handle.dataDir,
      databaseUrl: handle.databaseUrl,
      redisUrl: '',
      listen: '127.0.0.1:0',
      dnsblListen: '',
      // No scheduled dataset update: it would download from the real upstreams.
      datasetUpdate: 'off',
      // Any DNS the app asks (the FCrDNS pass) stays on this machine: nothing listens on port 9.
      dnsServers: ['127.0.0.1:9'],
      // wrk's requests name their client in X-Forwarded-For, as a reverse proxy would.
      trustedProxies: ['127.0.0.1'],
    },
    {},
  );
  const app = await createApp(config, {
    clock,
    intelFacts: intel,
    limitPrefix: `b${crypto.randomBytes(4).toString('hex')}`,
    ...(handle.pgSchema ? { pgSchema: handle.pgSchema } : {}),
  });
  const work = mkdtempSync(path.join(tmpdir(), 'netrep-bench-reputation-'));
  try {
    const { user } = await app.services.accounts.createUser({ email: 'bench@example.test', role: 'admin' });
    const make = (
      permissions: ('admin' | 'telemetry:write' | 'email:read')[],
      features: 'telemetry_ingest'[] = [],
    ) =>
      app.services.accounts.createKey({
        ownerId: user.id,
        name: 'bench',
        tier: 'enterprise',
        permissions,
        features,
      });
    const admin = (await make(['admin'])).key;
    const tele = (await make(['telemetry:write'])).key;
    const blocklist = app.services.blocklist;
    const reputation = app.services.reputation;
    if (!blocklist || !reputation) throw new Error('services missing');

    for (let i = 0; i < IPS; i++) await seedAddress({ app, clock, admin, tele, blocklist, reputation }, i);
    // 30 days of history for every IP.
    for (let d = 29; d >= 0; d--) {
      clock.set(NOW - d * DAY_MS);
      for (let i = 0; i < IPS; i++) await reputation.assess(ipOf(i));
    }
    clock.set(NOW);
    const probe = await app.http.inject({
      url: `/v1/email/ip/${ipOf(0)}/reputation`,
      remoteAddress: nextClient(),
    });
    const data = probe.json().data as { factors: unknown[]; history: unknown[] };
    if (data.history.length !== 30) throw new Error(`history has ${data.history.length} points`);

    // Warm-up is limited to 60/min per key: a ring of keys keeps the limit out of the way.
    const warmKeys = await Promise.all(
      Array.from({ length: WARMUP_KEYS }, async () => (await make(['email:read'])).key),
    );
    // Each in-flight worker classifies for its own owner: one owner's pool is classified by one
    // caller at a time (its rows are locked for the classification).
    const poolKeys: string[] = [];
    for (let w = 0; w < IN_FLIGHT; w++) {
      const owner = await app.services.accounts.createUser({
        email: `pool${w}@example.test`,
        role: 'member',
      });
      const made = await app.services.accounts.createKey({
        ownerId: owner.user.id,
        name: 'pool',
        tier: 'enterprise',
        permissions: ['email:read'],
        features: ['telemetry_ingest'],
      });
      poolKeys.push(made.key);
    }
    const batchIps = Array.from({ length: 100 }, (_, k) => ipOf(k * 2));
    const poolIps = Array.from({ length: 50 }, (_, k) => ipOf(k * 4 + 1));
    // Ingest goes to addresses the reads above never see (10.x is not scored; 46.x is fresh).
    let ingestSeq = 0;
    const freshIp = (n: number) => `46.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

    // Over HTTP: wrk scripts; each request names a new client (the counter, as 10.x.y.z).
    const base = existsSync(WRK) ? await app.listen() : null;
    const httpScripts = writeWrkScripts(work, batchIps);
    const overHttp = (name: keyof typeof httpScripts) => () => driveWrk(base as string, httpScripts[name]);

    const contenders: Record<string, () => Promise<Result>> = {
      ...(base
        ? {
            'http:healthz': overHttp('healthz'),
            'http:single': overHttp('single'),
            'http:batch': overHttp('batch'),
          }
        : {}),
      healthz: () => drive(async () => (await app.http.inject({ url: '/healthz' })).statusCode),
      single: () =>
        drive(async (i) => {
          const res = await app.http.inject({
            url: `/v1/email/ip/${ipOf(i % IPS)}/reputation`,
            remoteAddress: nextClient(),
          });
          if (res.statusCode !== 200) throw new Error(res.body);
          return res.statusCode;
        }),
      batch: () =>
        drive(
          async () =>
            (
              await app.http.inject({
                method: 'POST',
                url: '/v1/email/reputation/batch',
                payload: { ips: batchIps },
                remoteAddress: nextClient(),
              })
            ).statusCode,
        ),
      warmup: () =>
        drive(async (i) => {
          const res = await app.http.inject({
            url: `/v1/email/ip/${ipOf(i % IPS)}/warmup`,
            headers: { 'x-api-key': warmKeys[i % warmKeys.length] ?? '' },
          });
          if (res.statusCode !== 200) throw new Error(res.body);
          return res.statusCode;
        }),
      pool: () =>
        drive(async (_, worker) => {
          const res = await app.http.inject({
            method: 'POST',
            url: '/v1/email/pool/classify',
            headers: { 'x-api-key': poolKeys[worker] ?? '' },
            payload: { ips: poolIps },
          });
          if (res.statusCode !== 200) throw new Error(res.body);
          return res.statusCode;
        }),
      telemetryIngest: () =>
        drive(async () => {
          const base = ingestSeq;
          ingestSeq += 100;
          const observations = Array.from({ length: 100 }, (_, k) => ({
            ip: freshIp((base + k) % 2000),
            bounce_rate: (k % 8) / 100,
            complaint_rate: (k % 3) / 1000,
            volume_24h: 100 * k,
            observed_at: toIso(NOW - ((base + k) % 40) * 3_600_000),
          }));
          const res = await app.http.inject({
            method: 'POST',
            url: '/v1/email/telemetry/ingest',
            headers: { 'x-api-key': tele },
            payload: { observations },
          });
          if (res.statusCode !== 200) throw new Error(res.body);
          return res.statusCode;
        }),
      evidenceIngest: () =>
        drive(async () => {
          const base = ingestSeq;
          ingestSeq += 100;
          const events = Array.from({ length: 100 }, (_, k) => ({
            ip: freshIp((base + k) % 2000),
            kind: KINDS[k % 4],
            observed_at: toIso(NOW - (((base + k) * 0.37) % 60) * DAY_MS),
            synthetic: k % 9 === 0,
            source: 'bench',
          }));
          const res = await app.http.inject({
            method: 'POST',
            url: '/v1/admin/evidence',
            headers: { 'x-api-key': admin },
            payload: { events },
          });
          if (res.statusCode !== 200) throw new Error(res.body);
          return res.statusCode;
        }),
    };
    const rounds = await runRounds(contenders, kind);
    reportRounds(kind, rounds, base !== null, data.factors.length);
  } finally {
    rmSync(work, { recursive: true, force: true });
    await app.close();
    await handle.cleanup();
  }
}

const backends = await probeBackends();
const stores = process.env['REPUTATION_BENCH_STORES']?.split(',') ?? ['sqlite', 'postgres'];
if (stores.includes('sqlite')) await benchStore('sqlite');
if (!stores.includes('postgres')) {
  // skipped on request
} else if (backends.postgres) await benchStore('postgres');
else console.log(`reputation postgres: skipped (${backends.postgresReason})`);
