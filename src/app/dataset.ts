/**
 * Stage 3b of createApp: the serving snapshot and its updates. In 'load' mode the runtime built
 * with the domains loads the newest snapshot now (its log lines go to the logger of stage 1); in
 * 'build' mode (`netrep serve`) nothing is read before the HTTP listener is bound: then the
 * newest snapshot is loaded, or the first one built in a child process from the npm packages and
 * loaded, without holding the event loop, while /readyz says what is done and when it should be
 * ready (issue #36 item 1: a first start built in-process and listened only once loaded). The
 * updater that swaps in newer snapshots is built here, with the services, because the dataset
 * status routes answer with its next attempt.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import { checkNpmDir, isOtherFormat, snapshotDirs } from '../dataset/index.ts';
import type { DatasetStart } from '../http/readiness.ts';
import type { IntelRuntime } from '../intel/index.ts';
import { createChildBuildRunner } from '../worker/dataset-build-process.ts';
import {
  type DatasetUpdater,
  type DatasetUpdaterOptions,
  startDatasetUpdater,
} from '../worker/dataset-update.ts';
import type { StartSettings } from './settings.ts';
import { planStart, recordStart, startProgress } from './start-eta.ts';

export interface DatasetStage {
  /** /readyz waits for a dataset: one was loaded, or the first is being built. */
  expected: boolean;
  /** NETREP_DATASET_UPDATE: swaps in newer snapshots; builds them where the workers run. */
  updater: DatasetUpdater;
  /** What the start does until its first snapshot serves, with the ETA; null otherwise. */
  progress(): DatasetStart | null;
  /** The HTTP listener is bound: a 'build' start begins reading or building. */
  listening(): void;
  /** Settles when a 'build' start's snapshot serves or it failed (at once in 'load' mode). */
  started: Promise<void>;
  /** Stops the first build (its child is killed) and the updater. */
  stop(): Promise<void>;
}

export function startDatasetStage(inputs: {
  config: Config;
  settings: StartSettings;
  clock: Clock;
  log: Logger;
  runtime: IntelRuntime;
  /**
   * 'load' serves the newest snapshot in NETREP_DATA_DIR when there is one (else a later reload
   * brings one); 'build' also builds the first from the npm packages in the background when
   * there is none, and /readyz waits for it.
   */
  mode: 'load' | 'build';
  /** Where the workers run here, the updater downloads and builds. */
  builder: boolean;
  /** Test knobs of the update schedule. */
  update?: Pick<DatasetUpdaterOptions, 'checkIntervalMs' | 'retryMs' | 'npmDir' | 'build'>;
}): DatasetStage {
  const { config, runtime, clock } = inputs;
  // NETREP_DATASET_NPM_DIR, unless a test hands the folder in itself.
  const npmDir = inputs.update?.npmDir ?? (config.datasetNpmDir || undefined);
  if (config.datasetNpmDir) checkNpmDir(config.datasetNpmDir);
  const loaded = inputs.mode === 'load' && runtime.loadLatest();
  /** The start's progress, computed when /readyz asks (null once serving or failed). */
  let progress: () => DatasetStart | null = () => null;
  let onListening: () => void = () => undefined;
  const abort = new AbortController();

  async function startFirst(): Promise<void> {
    const newest = snapshotDirs(config.dataDir).find((c) => !isOtherFormat(c.dir)) ?? null;
    const plan = planStart(config.dataDir, newest, npmDir);
    let phase = {
      activity: newest ? ('loading' as const) : ('building' as const),
      version: newest?.version ?? null,
    };
    // Counted from now until the listener is bound, from then on.
    let begun = clock();
    const listening = new Promise<void>((resolve) => {
      onListening = () => {
        begun = clock();
        resolve();
      };
    });
    // At the serving process's priority: nothing is served from a dataset yet, ready soonest wins.
    const build = inputs.update?.build ?? createChildBuildRunner({ lowPriority: false });
    // ensure() sets the runtime's state at once ('loading' or 'building'), then waits for the listener.
    const ensured = runtime.ensure({
      after: listening,
      onPhase: (activity, version) => {
        phase = { activity, version };
      },
      build: () =>
        build({
          dataDir: config.dataDir,
          now: clock(),
          ...(npmDir ? { npmDir } : {}),
          onProgress: (line) => inputs.log.info(`dataset build ${line}`),
          signal: abort.signal,
        }),
    });
    progress = () => startProgress(plan, phase, begun, clock());
    try {
      await ensured;
      recordStart(config.dataDir, plan, clock() - begun, clock());
    } catch {
      // The runtime logged why and says 'failed': /readyz and the IP routes say so.
    } finally {
      progress = () => null;
    }
  }
  const started = inputs.mode === 'build' ? startFirst() : Promise.resolve();

  // Every instance swaps in newer snapshots; only one that runs the workers downloads and builds.
  const updater = startDatasetUpdater({
    dataDir: config.dataDir,
    clock,
    intervalMs: inputs.settings.datasetUpdateMs,
    sourcesFile: config.datasetSources,
    builder: inputs.builder,
    runtime,
    retryMs: inputs.settings.datasetRetryMs,
    logger: inputs.log,
    ...(npmDir ? { npmDir } : {}),
    ...inputs.update,
  });
  return {
    expected: loaded || inputs.mode === 'build',
    updater,
    progress: () => progress(),
    listening: () => onListening(),
    started,
    async stop() {
      abort.abort();
      await updater.stop();
    },
  };
}
