/**
 * How long the first dataset of a `netrep serve` start takes, expected and recorded (issue #36
 * item 1: /readyz says what the start does and when it expects to serve). Each start that gets
 * its dataset serving records how long that took in `<dataDir>/dataset-start-times.json`; the
 * next start expects the same (scaled by the input's size), or, with nothing recorded, the size
 * of its input at the rate measured on an idle machine (README "Start").
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { npmDataDir } from '../dataset/index.ts';
import type { DatasetStart } from '../http/readiness.ts';

type Kind = 'build' | 'load';

interface Recorded {
  ms: number;
  bytes: number;
  at: string;
}

type StartTimes = Partial<Record<Kind, Recorded>>;

/**
 * Milliseconds per MB of input on an otherwise idle machine: the CPU time measured on 2026-11-27
 * (a build from the npm CSVs, 63.6 MB, took 24.5 s of CPU in its child process, and the load of
 * the 55.8 MB snapshot it wrote a few more; one core each). A busy machine takes longer: the next
 * start expects what this one took.
 */
const MS_PER_MB: Record<Kind, number> = { build: 450, load: 100 };

/** The CSV files a build reads from the npm packages (dataset/inputs.ts readNpm). */
const NPM_PACKAGES = ['asn', 'geo-whois-asn-country', 'asn-country'];

const timesFile = (dataDir: string): string => path.join(dataDir, 'dataset-start-times.json');

function readTimes(dataDir: string): StartTimes {
  try {
    return JSON.parse(readFileSync(timesFile(dataDir), 'utf8')) as StartTimes;
  } catch {
    return {};
  }
}

/** Bytes a build reads from the npm packages (0 when they cannot be found). */
function npmInputBytes(npmDir?: string): number {
  let total = 0;
  try {
    const root = npmDir ?? npmDataDir();
    for (const pkg of NPM_PACKAGES)
      for (const family of ['ipv4', 'ipv6']) {
        try {
          total += statSync(path.join(root, pkg, `${pkg}-${family}.csv`)).size;
        } catch {
          // A package without that file: the build skips it too.
        }
      }
  } catch {
    return 0;
  }
  return total;
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) total += statSync(path.join(dir, name)).size;
  return total;
}

/** A start's expectation: what it reads, how long it should take and why. */
export interface StartPlan {
  kind: Kind;
  bytes: number;
  expectedMs: number;
  basis: DatasetStart['eta_basis'];
}

export function planStart(dataDir: string, snapshot: { dir: string } | null, npmDir?: string): StartPlan {
  const kind: Kind = snapshot ? 'load' : 'build';
  const bytes = snapshot ? dirBytes(snapshot.dir) : npmInputBytes(npmDir);
  const before = readTimes(dataDir)[kind];
  if (before && before.bytes > 0 && bytes > 0)
    return {
      kind,
      bytes,
      expectedMs: (before.ms * bytes) / before.bytes,
      basis: kind === 'build' ? 'previous build' : 'previous load',
    };
  return {
    kind,
    bytes,
    expectedMs: (bytes / 1e6) * MS_PER_MB[kind],
    basis: kind === 'build' ? 'input sizes' : 'snapshot size',
  };
}

/** Records how long a start took, for the next start's expectation. */
export function recordStart(dataDir: string, plan: StartPlan, ms: number, now: number): void {
  const times = readTimes(dataDir);
  times[plan.kind] = { ms: Math.round(ms), bytes: plan.bytes, at: new Date(now).toISOString() };
  try {
    writeFileSync(timesFile(dataDir), `${JSON.stringify(times, null, 2)}\n`);
  } catch {
    // A read-only data dir: the next start estimates from sizes again.
  }
}

/** The /readyz progress of a start at `now`. */
export function startProgress(
  plan: StartPlan,
  phase: { activity: DatasetStart['activity']; version: number | null },
  startedAt: number,
  now: number,
): DatasetStart {
  const elapsed = Math.max(0, Math.round((now - startedAt) / 1000));
  const expected = Math.max(1, Math.round(plan.expectedMs / 1000));
  const remaining = Math.max(0, expected - elapsed);
  const doing =
    phase.activity === 'building'
      ? 'building the first dataset snapshot from the npm data packages'
      : plan.kind === 'build'
        ? `loading dataset snapshot v${phase.version ?? '?'}, just built`
        : `loading dataset snapshot v${phase.version ?? '?'}`;
  return {
    activity: phase.activity,
    doing,
    version: phase.version,
    started_at: new Date(startedAt).toISOString(),
    elapsed_seconds: elapsed,
    expected_seconds: expected,
    remaining_seconds: remaining,
    eta_basis: plan.basis,
  };
}

/** The progress in words: `building … (about 40 s left of 95 s, estimated from the input sizes)`. */
export function describeStart(p: DatasetStart): string {
  const basis = {
    'previous build': 'as long as the previous build here',
    'previous load': 'as long as the previous load here',
    'input sizes': 'estimated from the size of the npm data',
    'snapshot size': 'estimated from the size of the snapshot',
  }[p.eta_basis];
  const left =
    p.remaining_seconds > 0
      ? `about ${p.remaining_seconds} s left of ${p.expected_seconds} s`
      : `${p.elapsed_seconds} s so far, longer than the ${p.expected_seconds} s expected`;
  return `${p.doing} (${left}, ${basis})`;
}
