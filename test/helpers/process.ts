/** Spawns the real `netrep` binary for end-to-end tests and waits for it to listen. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(REPO, 'bin/netrep.js');

export interface NetrepProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * `serve` listens before it reads its dataset (issue #36 item 1): unless `waitForDataset` is
 * false, this also waits until /readyz no longer says the start is building or loading it (its
 * 503 carries meta.dataset_start meanwhile), so the process it returns serves its dataset (or
 * says why not).
 */
export async function startNetrep(
  env: Record<string, string>,
  timeoutMs = 60_000,
  command: 'serve' | 'worker' = 'serve',
  options: { waitForDataset?: boolean } = {},
): Promise<NetrepProcess> {
  const child = spawn(process.execPath, ['--expose-gc', BIN, command], {
    cwd: env.NETREP_DATA_DIR ?? REPO,
    // No scheduled dataset update (it would download from the real upstreams); tests opt in.
    env: { ...process.env, NETREP_LOG_LEVEL: 'warn', NETREP_DATASET_UPDATE: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`netrep did not start in ${timeoutMs} ms:\n${out}`)),
      timeoutMs,
    );
    const check = () => {
      const m =
        command === 'serve' ? /listening on (http:\/\/[^\s"]+)/.exec(out) : /netrep worker running/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] ?? '');
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`netrep exited with ${code}:\n${out}`));
    });
  });
  if (command === 'serve' && options.waitForDataset !== false)
    await datasetStarted(url, timeoutMs, () => out);
  return {
    child,
    url,
    output: () => out,
    stop: async () => {
      // Ended already: by itself (an exit code) or by a signal (a SIGKILL test's process).
      const ended = () => child.exitCode !== null || child.signalCode !== null;
      if (ended()) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (!ended()) child.kill('SIGKILL');
    },
  };
}

/** Polls /readyz until the start has read or built its dataset (no meta.dataset_start). */
async function datasetStarted(url: string, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${url}/readyz`);
    const body = (await res.json()) as { meta?: { dataset_start?: unknown } };
    if (!body.meta?.dataset_start) return;
    if (Date.now() > deadline)
      throw new Error(`netrep did not load its dataset in ${timeoutMs} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Runs a CLI command to completion; returns stdout, stderr and the exit code. */
export function runNetrep(
  args: string[],
  env: Record<string, string>,
): { stdout: string; stderr: string; status: number } {
  const res = spawnSync(process.execPath, [BIN, ...args], {
    cwd: env.NETREP_DATA_DIR ?? REPO,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { stdout: res.stdout, stderr: res.stderr, status: res.status ?? -1 };
}

/**
 * runNetrep without blocking the test process: a long command (a dataset build from the full
 * shared data) must not freeze the event loop, or the servers the test talks to close its
 * idle keep-alive sockets unseen and the next request fails with "other side closed".
 */
export function runNetrepAsync(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 600_000,
): Promise<{ stdout: string; stderr: string; status: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: env.NETREP_DATA_DIR ?? REPO,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, status: code ?? -1 });
    });
  });
}

/** A PostgreSQL URL whose connections use the given schema. */
export function pgUrlWithSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}
