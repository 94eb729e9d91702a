export type { Telemetry } from './ingest.ts';
export { createTelemetry } from './ingest.ts';
export type { StoredObservation, Submitter, TelemetryFacts } from './store.ts';
export * from './types.ts';
export {
  CLOCK_SKEW_MS,
  MAX_OBSERVATION_AGE_MS,
  MAX_OBSERVATIONS,
  parseTimestamp,
  validateIngest,
  validateIngestBody,
  validateObservation,
} from './validate.ts';
