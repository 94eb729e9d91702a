/**
 * `netrep dataset build|update|list|status` (CONTRACT §0b). Progress on stderr
 * (build-progress.ts); the snapshot line and the summary table (build-summary.ts) on stdout. A
 * --from DIR that cannot be built from exits 2 with one sentence. `update` records its outcome
 * per source (dataset/update-status.ts), which `status` shows with the snapshot's families.
 */
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import {
  buildDataset,
  checkNpmDir,
  createDatasetStatusReader,
  type DownloadResult,
  downloadSources,
  FromDirError,
  type FromDirScan,
  isOtherFormat,
  listDatasetVersions,
  type RefusedSnapshot,
  readUpdateStatus,
  recordUpdateAttempt,
  resolveSources,
  scanFromDir,
  snapshotDirs,
  upstreamDir,
  verifySnapshot,
  writeUpdateStatus,
} from '../dataset/index.ts';
import { type BuildPlan, createBuildProgress } from './build-progress.ts';
import { formatBuildSummary } from './build-summary.ts';
import { registerDatasetExportCommand } from './dataset-export.ts';
import { formatDatasetStatus } from './dataset-status.ts';

/** Exit code of a build that has nothing to build from (a usage error, as commander's own 1 is taken). */
const EXIT_NO_INPUT = 2;
/** Exit code of `dataset verify` when a snapshot checked is broken. */
const EXIT_VERIFY_BROKEN = 3;

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

/**
 * `context` is appended to a no-input sentence (update: how many downloads succeeded). Returns
 * the version built, null when nothing could be built from.
 */
async function runBuild(from: string | undefined, context = ''): Promise<number | null> {
  const { dataDir, datasetNpmDir } = loadConfig();
  let scan: FromDirScan | null = null;
  try {
    if (datasetNpmDir) checkNpmDir(datasetNpmDir);
    scan = from === undefined ? null : scanFromDir(from);
  } catch (err) {
    if (!(err instanceof FromDirError)) throw err;
    failNoInput(err, context);
    return null;
  }
  const progress = createBuildProgress(process.stderr, planOf(dataDir, scan));
  try {
    const r = await buildDataset({
      dataDir,
      from,
      ...(datasetNpmDir ? { npmDir: datasetNpmDir } : {}),
      clock: systemClock,
      onProgress: (e) => progress.event(e),
    });
    progress.stop();
    process.stdout.write(`dataset v${r.version} ${r.dir}\n`);
    process.stdout.write(
      formatBuildSummary(
        r.snapshot.manifest.sources,
        scan?.unrecognised ?? null,
        process.stdout.columns || 100,
      ),
    );
    return r.version;
  } catch (err) {
    progress.stop();
    // The directory changed between the scan and the build's own check.
    if (err instanceof FromDirError) failNoInput(err, context);
    else throw err;
    return null;
  }
}

/** Records an update's outcome per source (dataset/update-status.ts) for `status` and /readyz. */
function recordUpdate(
  dataDir: string,
  results: readonly DownloadResult[],
  version: number | null,
  error?: string,
): void {
  const bad = results.filter((r) => !r.ok).map((r) => r.id);
  const failedText = `${bad.length} of ${results.length} downloads failed (${bad.join(', ')})`;
  writeUpdateStatus(
    dataDir,
    recordUpdateAttempt(readUpdateStatus(dataDir), {
      at: systemClock(),
      result: version === null ? 'failed' : bad.length > 0 ? 'partial' : 'ok',
      downloads: results,
      ...(version === null ? { stage: 'build' } : { version }),
      ...(error ? { error } : bad.length > 0 ? { error: failedText } : {}),
    }),
  );
}

/** `dataset update`: downloads each configured source, then builds, recording how it went. */
async function updateDataset(): Promise<void> {
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
  let version: number | null;
  try {
    version = await runBuild(
      upstreamDir(config.dataDir),
      ` (${ok} of ${results.length} downloads succeeded)`,
    );
  } catch (err) {
    recordUpdate(config.dataDir, results, null, (err as Error).message);
    throw err;
  }
  recordUpdate(config.dataDir, results, version, version === null ? 'nothing to build from' : undefined);
}

/** The newest snapshot that loads, as `serve` would pick it, and the broken newer ones. */
function newestServable(dataDir: string): { version: number | null; refused: RefusedSnapshot[] } {
  const refused: RefusedSnapshot[] = [];
  for (const c of snapshotDirs(dataDir)) {
    if (isOtherFormat(c.dir)) continue;
    const r = verifySnapshot(c.dir);
    if (r.problem === null) return { version: c.version, refused };
    refused.push({ version: c.version, reason: r.problem });
  }
  return { version: null, refused };
}

function printDatasetStatus(opts: { json?: boolean }): void {
  const config = loadConfig();
  const status = createDatasetStatusReader()({
    dataDir: config.dataDir,
    ...newestServable(config.dataDir),
    now: systemClock(),
    schedule: config.datasetUpdate,
  });
  process.stdout.write(opts.json ? `${JSON.stringify(status, null, 2)}\n` : formatDatasetStatus(status));
}

/** One line of `dataset verify`: the version, then ok (verified or by size only) or why it is broken. */
export function verifyLine(r: ReturnType<typeof verifySnapshot>): string {
  const outcome =
    r.problem !== null
      ? `broken: ${r.problem}`
      : r.verified
        ? 'ok: sizes and SHA-256 match the manifest'
        : 'ok, unverified: built before file hashes (2026-11-27), sizes checked only';
  return `v${r.version}\t${outcome}\n`;
}

function verifySnapshots(opts: { version?: string }): void {
  const { dataDir } = loadConfig();
  const all = snapshotDirs(dataDir).filter((c) => !isOtherFormat(c.dir));
  const wanted = opts.version === undefined ? all : all.filter((c) => String(c.version) === opts.version);
  if (wanted.length === 0) {
    process.stderr.write(
      `netrep: ${opts.version === undefined ? 'no dataset snapshots; run `netrep dataset build`' : `no dataset snapshot v${opts.version}`}\n`,
    );
    process.exitCode = EXIT_NO_INPUT;
    return;
  }
  let broken = 0;
  for (const c of wanted) {
    const r = verifySnapshot(c.dir);
    if (r.problem !== null) broken++;
    process.stdout.write(verifyLine(r));
  }
  if (broken > 0) process.exitCode = EXIT_VERIFY_BROKEN;
}

function listSnapshots(): void {
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
    .action(updateDataset);
  dataset
    .command('status')
    .description(
      'what the newest snapshot holds (source families, rows, age) and how the last update went, per source',
    )
    .option('--json', 'print the object /readyz carries under `dataset`')
    .action(printDatasetStatus);
  dataset
    .command('verify')
    .description(
      `check snapshots against their manifest: every file's size and SHA-256, then a full load (exit ${EXIT_VERIFY_BROKEN}: one is broken, ${EXIT_NO_INPUT}: no such snapshot)`,
    )
    .option('--version <n>', 'check only this version (default: every snapshot on disk)')
    .action(verifySnapshots);
  registerDatasetExportCommand(dataset);
  dataset.command('list').description('list the snapshots on disk, newest last').action(listSnapshots);
}
