export { reputationDataJson } from './answer-json.ts';
export type { EvidenceEvent, EvidenceFacts, EvidenceKind, TelemetryRow } from './evidence.ts';
export { deriveEvidence, EVIDENCE_KINDS } from './evidence.ts';
export type { EvidenceInput } from './evidence-input.ts';
export {
  MAX_EVIDENCE_EVENTS,
  MAX_SOURCE_LENGTH,
  oldestEvidenceTime,
  validateEvidenceBody,
  validateEvidenceEvent,
} from './evidence-input.ts';
export { checkFcrdns, MAX_PTR_NAMES } from './fcrdns.ts';
export type { Computation } from './history.ts';
export { dailyHistory, HISTORY_DAYS } from './history.ts';
export type { Assessment, EvidenceResult, Reputation, ReputationOptions } from './reputation.ts';
export { createReputation } from './reputation.ts';
export {
  BASE_SCORE,
  BOUNCE_THRESHOLD,
  COMPLAINT_THRESHOLD,
  EVIDENCE_WINDOW_MS,
  levelForScore,
  scoreReputation,
} from './score.ts';
export type { IntelFacts, ListingFacts, ListingSource } from './sources.ts';
export { listingFactsOf, unknownIntel } from './sources.ts';
export type { FcrdnsRecord, PristineTrapSource, ReputationStore } from './store.ts';
export { createReputationStore } from './store.ts';
export type { SubnetMember } from './subnet.ts';
export { contaminationLevel, subnetOf, summarizeSubnet } from './subnet.ts';
export * from './types.ts';
