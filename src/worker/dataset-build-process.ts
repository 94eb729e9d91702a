/**
 * Runs a dataset build in a child process (dataset-build-child.ts) so the serving process
 * keeps answering while it runs: the build holds the CPU for tens of seconds and peaks at a
 * few GB of heap on the full data, all of which is freed when the child exits; a crash or an
 * out-of-memory kill ends the child, not the server. The child runs at a lower CPU priority.
 * A failed or killed build leaves no snapshot: its temp directory is removed here.
 */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { datasetsDir } from '../dataset/index.ts';
import { spawnBuildChild } from './build-child.ts';

export interface BuildRequest {
  dataDir: string;
  /** Upstream files to import (the download directory). */
  from?: string;
  /** The ip-location-db packages directory (tests use the small fixtures). */
  npmDir?: string;
  /** created_at of the new snapshot (the scheduler's clock). */
  now: number;
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
}

/** Builds one snapshot and resolves with its version, or rejects with why it failed. */
export type BuildRunner = (request: BuildRequest) => Promise<number>;

const CHILD = new URL('./dataset-build-child.ts', import.meta.url);

/**
 * `lowPriority: false`: the child runs at the serving process's priority (a first start, which
 * has no dataset to keep serving and should be ready soonest; issue #36 item 1).
 */
export function createChildBuildRunner(
  options: { timeoutMs?: number; lowPriority?: boolean } = {},
): BuildRunner {
  const timeoutMs = options.timeoutMs ?? 30 * 60_000;
  return (request) =>
    new Promise<number>((resolve, reject) => {
      const args = { dataDir: request.dataDir, from: request.from, npmDir: request.npmDir, now: request.now };
      const child = spawnBuildChild(CHILD, args, { lowPriority: options.lowPriority !== false });
      let stdout = '';
      const progress = createProgressReader(request.onProgress);
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => progress.feed(d.toString()));
      let killedFor: string | null = null;
      const kill = (why: string) => {
        killedFor ??= why;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(() => kill(`timed out after ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
      const onAbort = () => kill('stopped');
      request.signal?.addEventListener('abort', onAbort, { once: true });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        const version = code === 0 ? parseVersion(stdout) : null;
        if (version !== null) {
          resolve(version);
          return;
        }
        if (child.pid) removeTempDirs(request.dataDir, child.pid);
        reject(failure(progress.step, failureReason(killedFor, signal, progress.error, code)));
      });
    });
}

/** The build's progress read from the child's stderr: each line passed on, the last step, the error. */
interface ProgressReader {
  feed(text: string): void;
  /** The last step reached ("phase: message"): how far the build got (past "write", a temp dir existed). */
  step: string | null;
  /** The text after the first `build failed: ` line. */
  error: string | null;
}

function createProgressReader(onProgress: ((line: string) => void) | undefined): ProgressReader {
  let partial = '';
  const reader: ProgressReader = {
    step: null,
    error: null,
    feed(text) {
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) readLine(reader, line, onProgress);
    },
  };
  return reader;
}

function readLine(
  reader: ProgressReader,
  line: string,
  onProgress: ((line: string) => void) | undefined,
): void {
  if (line.startsWith('build failed: ')) reader.error ??= line.slice(14);
  else if (reader.error === null && /^[a-z]+: /.test(line)) reader.step = line;
  onProgress?.(line);
}

/** Why the child ended without a version: our kill, its signal, its own error, or its exit code. */
function failureReason(
  killedFor: string | null,
  signal: NodeJS.Signals | null,
  error: string | null,
  code: number | null,
): string {
  if (killedFor !== null) return killedFor;
  if (signal) return `killed by ${signal}`;
  return error ?? `exited with code ${code}`;
}

/** The build's error, naming the last step it reached. */
function failure(step: string | null, why: string): Error {
  return new Error(step ? `dataset build failed after "${step}": ${why}` : `dataset build failed: ${why}`);
}

function parseVersion(stdout: string): number | null {
  const last = stdout.trim().split('\n').at(-1) ?? '';
  try {
    const v = (JSON.parse(last) as { version?: unknown }).version;
    return typeof v === 'number' && Number.isInteger(v) ? v : null;
  } catch {
    return null;
  }
}

/** build.ts writes into `datasets/.tmp-v<N>-<pid>` before its rename: the dead child's is removed. */
function removeTempDirs(dataDir: string, pid: number): void {
  const root = datasetsDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  for (const name of names)
    if (new RegExp(`^\\.tmp-v\\d+-${pid}$`).test(name))
      rmSync(path.join(root, name), { recursive: true, force: true });
}
