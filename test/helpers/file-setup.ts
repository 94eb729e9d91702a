/**
 * Runs before every test file (vitest.config.ts `setupFiles`). The suite's files share worker
 * processes (`isolate: false`, #33 item 5: each file importing the app anew cost 335-445 s of
 * worker time a run), so what a file changes in the process must not reach the next one: the
 * environment it set (the CLI tests point NETREP_DATA_DIR and others at their own folders) is put
 * back as it was, and an exit code a CLI command set is cleared.
 */
import { afterAll } from 'vitest';

const saved = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  for (const [name, value] of Object.entries(saved))
    if (process.env[name] !== value) process.env[name] = value;
  process.exitCode = undefined;
});
