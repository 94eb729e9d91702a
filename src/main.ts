/** Process entry: the `netrep` binary (bin/netrep.js) lands here. */

// lookup and summarize skip loading the server's modules (cli/list-program.ts says why).
const list = ['lookup', 'summarize'].includes(process.argv[2] ?? '');
const { runCli } = list ? await import('./cli/list-program.ts') : await import('./cli/program.ts');

try {
  await runCli(process.argv);
} catch (err) {
  process.stderr.write(`netrep: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
