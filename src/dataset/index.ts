export { type BuildResult, buildDataset } from './build.ts';
export { exportMmdb, type MmdbExportSources } from './export-mmdb.ts';
export {
  hasFeedRows,
  readFeedRows,
} from './feed-rows.ts';
export { FromDirError, type FromDirScan, scanFromDir } from './from-dir.ts';
export * from './importers/index.ts';
export { checkNpmDir, npmDataDir } from './inputs.ts';
export {
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
  type RefusedSnapshot,
  type RoaTable,
  recordRefusedSnapshots,
  type Snapshot,
  SnapshotError,
  snapshotDirs,
  sweepStaleBuilds,
  verifySnapshot,
} from './snapshot.ts';
export {
  type CrawlerPurpose,
  isAiPurpose,
  type SourceSpec,
  UPSTREAM_SOURCES,
} from './sources.ts';
export {
  createDatasetStatusReader,
  type DatasetStatus,
  holdsUpstreamSources,
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
  writeUpdateStatus,
} from './update-status.ts';
