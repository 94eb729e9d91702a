export { reputationDataJson } from './answer-json.ts';
export type { EvidenceFacts } from './evidence.ts';
export { EVIDENCE_KINDS } from './evidence.ts';
export {
  MAX_EVIDENCE_EVENTS,
  MAX_SOURCE_LENGTH,
} from './evidence-input.ts';
export { checkFcrdns } from './fcrdns.ts';
export type { Assessment, Reputation } from './reputation.ts';
export { createReputation } from './reputation.ts';
export type { IntelFacts } from './sources.ts';
export { listingFactsOf, unknownIntel } from './sources.ts';
export type { FcrdnsRecord } from './store.ts';
export { createReputationStore } from './store.ts';
export * from './types.ts';
