/**
 * `netrep dataset build|update|list` (CONTRACT §0b). Progress on stderr (build-progress.ts); the
 * snapshot line and the summary table (build-summary.ts) on stdout. A --from DIR that cannot be
 * built from exits 2 with one sentence.
 */
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import {
  buildDataset,
  downloadSources,
  FromDirError,
  type FromDirScan,
  listDatasetVersions,
  resolveSources,
  scanFromDir,
  upstreamDir,
} from '../dataset/index.ts';
import { type BuildPlan, createBuildProgress } from './build-progress.ts';
import { formatBuildSummary } from './build-summary.ts';
import { registerDatasetExportCommand } from './dataset-export.ts';

/** Exit code of a build that has nothing to build from (a usage error, as commander's own 1 is taken). */
const EXIT_NO_INPUT = 2;

function failNoInput(err: FromDirError, context: string): void {
  process.stderr.write(`netrep: ${err.message}${context}\n`);
  process.exitCode = EXIT_NO_INPUT;
}

function planOf(dataDir: string, scan: FromDirScan | null): BuildPlan {
  return {
    files: (scan?.recognised ?? []).map((f) => ({
      id: f.spec.id,
      bytes: f.bytes,
      gzip: f.path.endsWith('.gz'),
    })),
    hasPrevious: listDatasetVersions(dataDir).length > 0,
  };
}

/** `context` is appended to a no-input sentence (update: how many downloads succeeded). */
async function runBuild(from: string | undefined, context = ''): Promise<void> {
  const { dataDir } = loadConfig();
  let scan: FromDirScan | null = null;
  try {
    scan = from === undefined ? null : scanFromDir(from);
  } catch (err) {
    if (!(err instanceof FromDirError)) throw err;
    failNoInput(err, context);
    return;
  }
  const progress = createBuildProgress(process.stderr, planOf(dataDir, scan));
  try {
    const r = await buildDataset({ dataDir, from, clock: systemClock, onProgress: (e) => progress.event(e) });
    progress.stop();
    process.stdout.write(`dataset v${r.version} ${r.dir}\n`);
    process.stdout.write(
      formatBuildSummary(
        r.snapshot.manifest.sources,
        scan?.unrecognised ?? null,
        process.stdout.columns || 100,
      ),
    );
  } catch (err) {
    progress.stop();
    // The directory changed between the scan and the build's own check.
    if (err instanceof FromDirError) failNoInput(err, context);
    else throw err;
  }
}

export function registerDatasetCommands(program: Command): void {
  const dataset = program
    .command('dataset')
    .description('build, update and list IP intelligence dataset snapshots');
  dataset
    .command('build')
    .description('build a snapshot from the npm data packages, plus upstream files under --from')
    .option('--from <dir>', 'directory laid out like shared/data with upstream files')
    .action(async (opts: { from?: string }) => {
      await runBuild(opts.from);
    });
  dataset
    .command('update')
    .description('download the configured upstream sources, then build')
    .action(async () => {
      const config = loadConfig();
      const sources = resolveSources(config.datasetSources);
      const results = await downloadSources({
        dataDir: config.dataDir,
        sources,
        onResult: (r) =>
          process.stderr.write(
            `[dataset] download ${r.id}: ${r.ok ? `${r.bytes} bytes` : `failed, ${r.error}`}\n`,
          ),
      });
      const ok = results.filter((r) => r.ok).length;
      process.stderr.write(`[dataset] downloaded ${ok}/${results.length} sources\n`);
      await runBuild(upstreamDir(config.dataDir), ` (${ok} of ${results.length} downloads succeeded)`);
    });
  registerDatasetExportCommand(dataset);
  dataset
    .command('list')
    .description('list the snapshots on disk, newest last')
    .action(() => {
      const versions = listDatasetVersions(loadConfig().dataDir);
      if (versions.length === 0) {
        process.stdout.write('no dataset snapshots; run `netrep dataset build`\n');
        return;
      }
      const last = versions[versions.length - 1]?.version;
      for (const v of versions) {
        process.stdout.write(
          `v${v.version}\t${v.createdAt}\t${v.sources} sources${v.version === last ? '\t(latest)' : ''}\n`,
        );
      }
    });
}
