/**
 * The integration tests drive programs from Debian packages that .ci/run installs. A missing one
 * fails the run under CI=true (CI must exercise it); elsewhere the suite is skipped with the
 * reason printed.
 */
import { spawnSync } from 'node:child_process';

/** True when every program answers on PATH; false (after printing why) when one is missing locally. */
export function toolsAvailable(suite: string, programs: Record<string, string>): boolean {
  const missing = Object.entries(programs).filter(
    ([program]) => spawnSync('sh', ['-c', `command -v ${program}`]).status !== 0,
  );
  if (missing.length === 0) return true;
  const what = missing.map(([program, pkg]) => `${program} (Debian ${pkg})`).join(', ');
  if (process.env.CI === 'true') throw new Error(`${suite}: CI=true but ${what} is not installed`);
  process.stdout.write(`[skip] ${suite}: ${what} not installed; .ci/run installs it\n`);
  return false;
}
