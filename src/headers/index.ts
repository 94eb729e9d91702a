export { type AnalyzeOptions, analyzeHeaders } from './analyze.ts';
export { checkHeadersInput, MAX_ENRICHED_HOPS, MAX_HEADERS_BYTES } from './limits.ts';
export {
  type Authentication,
  AuthenticationSchema,
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
} from './types.ts';
