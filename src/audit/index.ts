export { canonicalRequest, requestHash } from './canonical-request.ts';
export { createDatasetVersions, type DatasetVersions } from './dataset-versions.ts';
export { type AuditJobs, type Caller, createAuditJobs } from './jobs.ts';
export { createPopulation, type Population } from './population.ts';
export { SAMPLING_METHOD, samplePopulation } from './sampling.ts';
export { type AuditStore, createAuditStore } from './store.ts';
export * from './types.ts';
