/** `netrep dataset build|update|list` (CONTRACT §0b). Progress bar on a terminal, log lines otherwise. */
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import {
  buildDataset,
  downloadSources,
  listDatasetVersions,
  type ProgressEvent,
  resolveSources,
  upstreamDir,
} from '../dataset/index.ts';

const PHASES = ['read', 'merge', 'write', 'history', 'done'];

interface Reporter {
  event(e: ProgressEvent): void;
  stop(): void;
}

function createReporter(): Reporter {
  if (!process.stderr.isTTY) {
    return {
      event: (e) => process.stderr.write(`[dataset] ${e.phase}: ${e.message}\n`),
      stop: () => {},
    };
  }
  const bar = new SingleBar({
    format: 'dataset [{bar}] {phase} {message}',
    stream: process.stderr,
    hideCursor: true,
  });
  bar.start(PHASES.length, 0, { phase: 'start', message: '' });
  return {
    event: (e) =>
      bar.update(Math.max(0, PHASES.indexOf(e.phase)) + 1, {
        phase: e.phase,
        message: e.message.slice(0, 60),
      }),
    stop: () => bar.stop(),
  };
}

async function runBuild(from: string | undefined): Promise<void> {
  const { dataDir } = loadConfig();
  const reporter = createReporter();
  try {
    const r = await buildDataset({ dataDir, from, clock: systemClock, onProgress: (e) => reporter.event(e) });
    reporter.stop();
    process.stdout.write(`dataset v${r.version} ${r.dir}\n`);
  } catch (err) {
    reporter.stop();
    throw err;
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
      const failed = results.filter((r) => !r.ok).length;
      process.stderr.write(`[dataset] downloaded ${results.length - failed}/${results.length} sources\n`);
      await runBuild(upstreamDir(config.dataDir));
    });
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
