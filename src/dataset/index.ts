export { type BuildOptions, type BuildResult, buildDataset } from './build.ts';
export { rirForCountry } from './country-rir.ts';
export {
  type AnswerAt,
  cidrsOf,
  exportMmdb,
  type MmdbAnswer,
  type MmdbExportResult,
  mmdbRecordOf,
} from './export-mmdb.ts';
export {
  DATASET_FEEDS,
  type DatasetFeed,
  type DatasetFeedRow,
  hasFeedRows,
  readFeedRows,
} from './feed-rows.ts';
export { FromDirError, type FromDirScan, type RecognisedFile, scanFromDir } from './from-dir.ts';
export { diffSnapshots } from './history.ts';
export * from './importers/index.ts';
export { npmDataDir } from './inputs.ts';
export { type Provenance, RULE_COUNTRY_RIR } from './merge.ts';
export {
  type DatasetVersion,
  datasetsDir,
  type FamilyTable,
  type HistoryFile,
  hasDigests,
  isOtherFormat,
  listDatasetVersions,
  loadHistory,
  loadLatestSnapshot,
  loadSnapshot,
  loadSnapshotAsync,
  NO_RECORD,
  type RecordTable,
  type RefusedSnapshot,
  type RoaTable,
  recordRefusedSnapshots,
  refusedSnapshots,
  type Snapshot,
  SnapshotError,
  snapshotDirs,
  sweepStaleBuilds,
  type VerifyResult,
  verifySnapshot,
} from './snapshot.ts';
export {
  type CrawlerPurpose,
  isAiPurpose,
  PROXY_MAX_AGE_DAYS,
  type SourceSpec,
  UPSTREAM_SOURCES,
} from './sources.ts';
export {
  BUNDLED_FAMILY,
  createDatasetStatusReader,
  type DatasetStatus,
  type DatasetStatusOptions,
  holdsUpstreamSources,
  sourceFamily,
} from './status.ts';
export { type AsnEntry, FLAG, type Manifest, type ProgressEvent, RIRS, type SourceInfo } from './types.ts';
export {
  acquireUpdateLock,
  type DownloadResult,
  downloadSources,
  resolveSources,
  upstreamDir,
} from './update.ts';
export {
  EMPTY_UPDATE_STATUS,
  readUpdateStatus,
  recordUpdateAttempt,
  type UpdateResult,
  type UpdateStatusFile,
  updateStatusFile,
  writeUpdateStatus,
} from './update-status.ts';
