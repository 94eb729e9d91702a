/** Process entry: the `netrep` binary (bin/netrep.js) lands here. */
import { runCli } from './cli/program.ts';

try {
  await runCli(process.argv);
} catch (err) {
  process.stderr.write(`netrep: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
