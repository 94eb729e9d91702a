/**
 * Stage 3b of createApp: the serving snapshot and its updates. The runtime built with the domains
 * loads the newest snapshot now (its log lines go to the logger of stage 1); the updater that swaps
 * in newer ones is built here, with the services, because the dataset status routes answer with
 * its next attempt.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import type { IntelRuntime } from '../intel/index.ts';
import {
  type DatasetUpdater,
  type DatasetUpdaterOptions,
  startDatasetUpdater,
} from '../worker/dataset-update.ts';
import type { StartSettings } from './settings.ts';

export interface DatasetStage {
  /** /readyz waits for a dataset: one was loaded, or the first is being built. */
  expected: boolean;
  /** NETREP_DATASET_UPDATE: swaps in newer snapshots; builds them where the workers run. */
  updater: DatasetUpdater;
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
  const { config, runtime } = inputs;
  const loaded = runtime.loadLatest();
  if (!loaded && inputs.mode === 'build') runtime.ensure().catch(() => undefined);
  // Every instance swaps in newer snapshots; only one that runs the workers downloads and builds.
  const updater = startDatasetUpdater({
    dataDir: config.dataDir,
    clock: inputs.clock,
    intervalMs: inputs.settings.datasetUpdateMs,
    sourcesFile: config.datasetSources,
    builder: inputs.builder,
    runtime,
    retryMs: inputs.settings.datasetRetryMs,
    logger: inputs.log,
    ...inputs.update,
  });
  return { expected: loaded || inputs.mode === 'build', updater };
}
