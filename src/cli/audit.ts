/**
 * `netrep audit run` and `netrep audit show ID` (issue 16): the same job as POST /v1/audit/jobs,
 * created for a user of the local store and run in this process by the audit runner (a worker
 * of `netrep serve` may take part; the command then waits for the job to end). A progress bar
 * on a terminal, then the result as JSON (default when piped) or a short table. Exit codes for
 * pipelines (issue 31): 0 done and the gate (if any) pass or review, 1 the job failed or could not
 * be created, 3 the acceptance gate says fail (EXIT_GATE_FAILED).
 */
import { Value } from '@sinclair/typebox/value';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import {
  type AuditResult,
  CreateAuditJobBody,
  createAuditJobs,
  createAuditRunner,
  createAuditStore,
  createDatasetVersions,
} from '../audit/index.ts';
import { systemClock } from '../core/clock.ts';
import { createDnsClient } from '../core/dns/index.ts';
import { isAppError } from '../core/errors.ts';
import { listDatasetVersions } from '../dataset/index.ts';
import { createReputationStore } from '../reputation/index.ts';
import { type CliContext, fail, withContext } from './context.ts';
import { ownerOf } from './owner.ts';

type Format = 'json' | 'table';

interface RunOptions {
  target: string[];
  ip: string[];
  cidr: string[];
  asn: string[];
  datasetVersion?: string;
  seed: string;
  maxSamples?: string;
  maxPopulation?: string;
  freshnessSeconds?: string;
  acceptance?: boolean;
  owner?: string;
  format?: Format;
}

const int = (v: string | undefined, name: string): number | undefined => {
  if (v === undefined) return undefined;
  if (!/^\d{1,16}$/.test(v)) fail(`${name} must be a whole number, got ${JSON.stringify(v)}`);
  return Number(v);
};

/** A short table: one line per zone, the FCrDNS counts and the gate. */
export function resultTable(result: AuditResult): string {
  const job = result.job;
  const fi = (job.final_interpretation ?? {}) as {
    zones?: Record<string, Record<string, number>>;
    fcrdns?: Record<string, number>;
    acceptance?: { gate: string; reasons: string[] };
  };
  const lines = [
    `job ${job.id}  ${job.status}  dataset v${job.dataset_version}  seed ${JSON.stringify(job.seed)}  ${result.targets.length} addresses`,
    `${'zone'.padEnd(32)} ${'listed'.padStart(7)} ${'clean'.padStart(7)} ${'error'.padStart(7)} ${'timeout'.padStart(7)}`,
  ];
  for (const [zone, c] of Object.entries(fi.zones ?? {})) {
    const col = (k: string) => String(c[k] ?? 0).padStart(7);
    lines.push(`${zone.padEnd(32)} ${col('listed')} ${col('not_listed')} ${col('error')} ${col('timeout')}`);
  }
  if (fi.fcrdns)
    lines.push(
      `fcrdns: pass ${fi.fcrdns.pass ?? 0}, fail ${fi.fcrdns.fail ?? 0}, unknown ${fi.fcrdns.unknown ?? 0}`,
    );
  if (fi.acceptance) lines.push(`gate: ${fi.acceptance.gate} (${fi.acceptance.reasons.join('; ')})`);
  if (job.error_detail) lines.push(`error: ${job.error_detail}`);
  return `${lines.join('\n')}\n`;
}

function print(result: AuditResult, format: Format): void {
  process.stdout.write(format === 'table' ? resultTable(result) : `${JSON.stringify({ data: result })}\n`);
}

/** Exit code of `audit run` and `audit show` when the job ended but its acceptance gate says `fail`. */
export const EXIT_GATE_FAILED = 3;

/**
 * The exit code a pipeline reads: 1 when the job failed or was cancelled, 3 when it succeeded
 * and its acceptance gate says `fail`, else 0 (gate `pass` or `review`, no gate, or a job still
 * queued or running for `audit show`). Usage and input errors exit 1 before a job exists.
 */
export function exitCodeOf(result: AuditResult): number {
  const job = result.job;
  if (job.status === 'failed' || job.status === 'cancelled') return 1;
  const gate = (job.final_interpretation as { acceptance?: { gate?: string; reasons?: string[] } } | null)
    ?.acceptance;
  if (gate?.gate === 'fail') {
    process.stderr.write(
      `netrep: audit job ${job.id}: acceptance gate fail (${(gate.reasons ?? []).join('; ')})\n`,
    );
    return EXIT_GATE_FAILED;
  }
  return 0;
}

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

/** The POST /v1/audit/jobs body the options describe (a limit that is not a number fails here). */
export function jobBody(opts: RunOptions, datasetVersion: number): Record<string, unknown> {
  const asns = opts.asn.map((a) => {
    const n = Number(a.replace(/^AS/i, ''));
    return Number.isFinite(n) ? n : -1;
  });
  const limit = (v: string | undefined, key: string, name: string) => (v ? { [key]: int(v, name) } : {});
  return {
    ...(opts.target.length ? { targets: opts.target } : {}),
    ...(opts.ip.length ? { ips: opts.ip } : {}),
    ...(opts.cidr.length ? { cidrs: opts.cidr } : {}),
    ...(asns.length ? { asns } : {}),
    dataset_version: datasetVersion,
    seed: opts.seed,
    ...limit(opts.maxSamples, 'max_samples', '--max-samples'),
    ...limit(opts.maxPopulation, 'max_population', '--max-population'),
    ...limit(opts.freshnessSeconds, 'freshness_seconds', '--freshness-seconds'),
    ...(opts.acceptance ? { acceptance: true } : {}),
  };
}

type AuditStore = ReturnType<typeof createAuditStore>;
type AuditJobs = ReturnType<typeof createAuditJobs>;

/** Creates the job, checked against the route's own schema (the limits of POST /v1/audit/jobs). */
async function createJob(
  jobs: AuditJobs,
  body: Record<string, unknown>,
  ownerId: number,
): Promise<Awaited<ReturnType<AuditJobs['create']>>> {
  const issue = Value.Errors(CreateAuditJobBody, body).First();
  if (issue) fail(`INVALID_BODY: ${issue.path || 'body'} ${issue.message}`);
  try {
    return await jobs.create(body as CreateAuditJobBody, { ownerId, keyId: null });
  } catch (err) {
    if (isAppError(err)) fail(`${err.code}: ${err.message}`);
    throw err;
  }
}

function runnerFor(ctx: CliContext, store: AuditStore): ReturnType<typeof createAuditRunner> {
  const { config } = ctx;
  return createAuditRunner({
    store,
    dns: createDnsClient({ servers: config.dnsServers, timeoutMs: config.auditDnsTimeoutMs }),
    clock: systemClock,
    ownZone: config.dnsblZone,
    extraZones: config.auditZones,
    concurrency: Math.max(1, config.auditConcurrency),
    leaseMs: Math.max(1, config.auditLeaseSeconds) * 1000,
    worker: `cli-${process.pid}`,
    recordFcrdns: (record) => createReputationStore(ctx.store).saveFcrdns(record),
  });
}

/** Shows the job's progress every second: a bar on a terminal, else a log line. Returns the stop. */
function showProgress(store: AuditStore, jobId: number, planned: number, status: string): () => void {
  const bar = process.stderr.isTTY
    ? new SingleBar({
        format: 'audit {bar} {value}/{total} probes  {status}',
        hideCursor: true,
        stream: process.stderr,
      })
    : null;
  bar?.start(planned, 0, { status });
  const tick = setInterval(() => {
    void store.job(jobId, null).then((row) => {
      if (!row) return;
      const p = JSON.parse(row.progress) as { done?: number };
      bar?.update(p.done ?? 0, { status: row.status });
      if (!bar) process.stderr.write(`[audit] job ${jobId} ${row.status} ${p.done ?? 0}/${planned} probes\n`);
    });
  }, 1000);
  return () => {
    clearInterval(tick);
    bar?.stop();
  };
}

/** Runs the job here until it ends; another worker may hold it, then this waits for it. */
async function runToEnd(
  store: AuditStore,
  runner: ReturnType<typeof createAuditRunner>,
  jobId: number,
): Promise<void> {
  for (;;) {
    const row = await store.job(jobId, null);
    if (!row || TERMINAL.has(row.status)) return;
    // Ours to run when queued or abandoned; else another worker holds it: wait for it.
    if (!(await runner.runNext(jobId))) await new Promise((r) => setTimeout(r, 500));
  }
}

async function runAudit(opts: RunOptions): Promise<void> {
  const format: Format = opts.format ?? (process.stdout.isTTY ? 'table' : 'json');
  if (format !== 'json' && format !== 'table') fail(`--format must be json or table, got ${String(format)}`);
  await withContext(async (ctx) => {
    const { config } = ctx;
    const newest = listDatasetVersions(config.dataDir).at(-1)?.version;
    const datasetVersion = int(opts.datasetVersion, '--dataset-version') ?? newest;
    if (datasetVersion === undefined) fail('no dataset version is held here: run netrep dataset build first');
    const store = createAuditStore(ctx.store);
    const jobs = createAuditJobs({
      store,
      clock: systemClock,
      datasets: createDatasetVersions(config.dataDir),
      probesPerAddress: () =>
        new Set([config.dnsblZone, ...config.auditZones].map((z) => z.toLowerCase())).size + 1,
    });
    const ownerId = await ownerOf(ctx.accounts, opts.owner);
    const created = await createJob(jobs, jobBody(opts, datasetVersion), ownerId);
    const jobId = created.job.id;
    if (created.reused)
      process.stderr.write(
        `reusing succeeded job ${jobId} (fresh until ${created.job.freshness_expires_at})\n`,
      );
    const runner = runnerFor(ctx, store);
    const planned = (created.job.progress as { planned?: number }).planned ?? 0;
    const stop = showProgress(store, jobId, planned, created.job.status);
    try {
      await runToEnd(store, runner, jobId);
    } finally {
      stop();
    }
    const result = await jobs.result(jobId, ownerId);
    if (!result) fail(`job ${jobId} vanished`);
    print(result, format);
    process.exitCode = result.job.status === 'succeeded' ? exitCodeOf(result) : 1;
  });
}

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('reproducible DNSBL and FCrDNS audit jobs');
  const collect = (v: string, prev: string[]) => [...prev, ...v.split(',').filter(Boolean)];
  audit
    .command('run')
    .description(
      'create an audit job (as POST /v1/audit/jobs) and run it here; prints the result. Exit 0 when it succeeded ' +
        '(gate pass or review), 1 when it failed or was refused, 3 when the acceptance gate says fail',
    )
    .option('--target <t>', 'IP, CIDR or ASN (repeatable, comma-separated)', collect, [])
    .option('--ip <ip>', 'IP address (repeatable)', collect, [])
    .option('--cidr <cidr>', 'CIDR network (repeatable)', collect, [])
    .option('--asn <asn>', 'ASN, expanded to the dataset version’s prefixes (repeatable)', collect, [])
    .option('--dataset-version <n>', 'pinned dataset version (default: the newest held here)')
    .requiredOption('--seed <seed>', 'deterministic sampling seed')
    .option('--max-samples <n>', 'sample size cap 1-10000 (default 256)')
    .option('--max-population <n>', 'largest population accepted (default 1000000)')
    .option('--freshness-seconds <n>', 'reuse window 1-86400 of the job')
    .option('--acceptance', 'add the pass/review/fail acceptance gate')
    .option('--owner <email>', 'owning user (default: the first administrator)')
    .option('--format <format>', 'json or table (default: table on a terminal, else json)')
    .action(runAudit);
  audit
    .command('show')
    .description(
      'print the full result of an audit job. Exit 0, or 1 when the job failed or was cancelled, 3 when its acceptance gate says fail',
    )
    .argument('<id>', 'job id')
    .option('--format <format>', 'json or table (default: table on a terminal, else json)')
    .action(async (id: string, opts: { format?: Format }) => {
      const jobId = int(id, 'id') as number;
      const format: Format = opts.format ?? (process.stdout.isTTY ? 'table' : 'json');
      await withContext(async (ctx) => {
        const store = createAuditStore(ctx.store);
        const row = await store.job(jobId, null);
        if (!row) fail(`no audit job ${jobId}`);
        const jobs = createAuditJobs({
          store,
          clock: systemClock,
          datasets: createDatasetVersions(ctx.config.dataDir),
          probesPerAddress: () => 0,
        });
        const result = await jobs.result(jobId, row.owner_id);
        if (!result) fail(`no audit job ${jobId}`);
        print(result, format);
        process.exitCode = exitCodeOf(result);
      });
    });
}
