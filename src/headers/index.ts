export { type AnalyzeOptions, analyzeHeaders } from './analyze.ts';
export { checkHeadersInput, MAX_ENRICHED_HOPS, MAX_HEADERS_BYTES } from './limits.ts';
export {
  type ArcChain,
  type Authentication,
  AuthenticationSchema,
  type AuthResultsHeader,
  type DkimResult,
  type DkimSignature,
  type HeaderAnalysis,
  HeaderAnalysisSchema,
  type HeaderAnalyzerBody,
  HeaderAnalyzerBodySchema,
  type Hop,
  type HopEnrichment,
  HopEnrichmentSchema,
  HopSchema,
  type Infrastructure,
  InfrastructureSchema,
  type ResultEntry,
} from './types.ts';
