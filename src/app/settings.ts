/**
 * Stage 0 of createApp: the settings that cannot work fail before anything is opened (a listen
 * address that does not parse, an update interval that is not one).
 */
import type { Config } from '../config.ts';
import { type ListenAddress, parseHostPort } from '../core/listen.ts';
import { type MetricsPlacement, metricsPlacement } from '../http/metrics-listener.ts';
import { parseRetryDelay, parseUpdateInterval } from '../worker/dataset-update.ts';

export interface StartSettings {
  /** NETREP_LISTEN. */
  mainAddress: ListenAddress;
  /** NETREP_METRICS_LISTEN: on the main listener, a separate one, or off. */
  metricsAt: MetricsPlacement;
  /** NETREP_DATASET_UPDATE as milliseconds (null: off). */
  datasetUpdateMs: number | null;
  /** NETREP_DATASET_UPDATE_RETRY as milliseconds. */
  datasetRetryMs: number;
}

export function readStartSettings(config: Config): StartSettings {
  return {
    mainAddress: parseHostPort(config.listen, {
      defaultHost: '127.0.0.1',
      defaultPort: 8080,
      what: 'NETREP_LISTEN',
    }),
    metricsAt: metricsPlacement(config.metricsListen),
    datasetUpdateMs: parseUpdateInterval(config.datasetUpdate),
    datasetRetryMs: parseRetryDelay(config.datasetUpdateRetry),
  };
}
