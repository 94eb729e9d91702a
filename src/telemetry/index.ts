export type { Telemetry } from './ingest.ts';
export { createTelemetry } from './ingest.ts';
export type { TelemetryFacts } from './store.ts';
export * from './types.ts';
export {
  CLOCK_SKEW_MS,
  MAX_OBSERVATIONS,
  parseTimestamp,
} from './validate.ts';
