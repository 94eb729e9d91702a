/**
 * The child process of a scheduled dataset update (dataset-build-process.ts): builds one
 * snapshot from the downloaded upstream files and prints `{"version":N}` on stdout. Progress
 * goes to stderr as lines. The build runs here, not in the serving process, because it is
 * CPU- and memory-heavy (tens of seconds and a few GB on the full data) and would otherwise
 * stall every request for that long.
 */
import { buildDataset } from '../dataset/index.ts';

interface ChildArgs {
  dataDir: string;
  from?: string;
  npmDir?: string;
  /** The parent's clock at the start of the update: the snapshot's created_at. */
  now: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as ChildArgs;
try {
  const r = await buildDataset({
    dataDir: args.dataDir,
    clock: () => args.now,
    ...(args.from ? { from: args.from } : {}),
    ...(args.npmDir ? { npmDir: args.npmDir } : {}),
    onProgress: (e) => process.stderr.write(`${e.phase}: ${e.message}\n`),
  });
  process.stdout.write(`${JSON.stringify({ version: r.version })}\n`);
} catch (err) {
  process.stderr.write(`build failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
}
