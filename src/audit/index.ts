export { createDatasetVersions, type DatasetVersions } from './dataset-versions.ts';
export { type DnsblProbe, dnsblQueryName, probeDnsbl, REFUSAL_CODES } from './dnsbl-probe.ts';
export { type AuditJobs, createAuditJobs } from './jobs.ts';
export { type AuditRunner, createAuditRunner, type RunEnd } from './runner.ts';
export { createAuditStore } from './store.ts';
export * from './types.ts';
