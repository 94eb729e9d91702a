export { type AnswerCache, createAnswerCache } from './answer-cache.ts';
export { CURATED_ASNS, type CuratedAsn } from './asn-classes.ts';
export { type AsnQuery, createIntel, type Intel, type IntelOptions } from './intel.ts';
export { type CachedAnswer, createIntelRuntime, type IntelRuntime, type RuntimeState } from './runtime.ts';
export { scoreThreat, threatLevel } from './threat.ts';
export { createTrapSet, TRAP_WINDOW_MS, type TrapSet } from './trap-set.ts';
// Types only: the schema values are in schemas.ts (TypeBox stays out of the list commands).
export type * from './types.ts';
export { intelFactsOf, ipEnrichmentOf, withDeadline } from './wiring.ts';
