export { CURATED_ASNS, type CuratedAsn } from './asn-classes.ts';
export { type AsnQuery, createIntel, type Intel, type IntelOptions } from './intel.ts';
export { scoreThreat, threatLevel } from './threat.ts';
export * from './types.ts';
