/**
 * Runs CLI commands in process: a fresh commander program with the given command groups, its
 * stdout and stderr captured, and the exit code it set.
 */
import { Command } from 'commander';
import { vi } from 'vitest';

export interface CliRun {
  out: string;
  err: string;
  code: number;
}

export async function runCli(register: ((program: Command) => void)[], args: string[]): Promise<CliRun> {
  const program = new Command('netrep').exitOverride();
  for (const r of register) r(program);
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => {
    out += String(c);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => {
    err += String(c);
    return true;
  });
  process.exitCode = 0;
  try {
    await program.parseAsync(['node', 'netrep', ...args]);
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { out, err, code };
}

/**
 * runCli answering in the shape of a run of the binary (test/helpers/process.ts: stdout, stderr,
 * status), for files that run the commands that end normally in process and the refusals, which
 * exit the process, through the binary.
 */
export async function runCliAsBinary(
  register: ((program: Command) => void)[],
  args: string[],
): Promise<{ stdout: string; stderr: string; status: number }> {
  const r = await runCli(register, args);
  return { stdout: r.out, stderr: r.err, status: r.code };
}
