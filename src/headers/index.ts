export { type AnalyzeOptions, analyzeHeaders } from './analyze.ts';
export { checkHeadersInput, MAX_HEADERS_BYTES } from './limits.ts';
export {
  type Authentication,
  type HeaderAnalysis,
  HeaderAnalysisSchema,
  type HeaderAnalyzerBody,
  HeaderAnalyzerBodySchema,
  type Hop,
  type HopEnrichment,
  type ResultEntry,
} from './types.ts';
