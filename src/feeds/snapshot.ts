import { chmod, mkdir, mkdtemp, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { feedDefinition, isFeedName } from './catalog.ts';
import { SnapshotFiles } from './snapshot-files.ts';
import { type RowSource, sortFeedRecords } from './sort-rows.ts';
import { type FeedManifest, FeedManifestSchema, type FeedName } from './types.ts';

export const MANIFEST_FILE = 'manifest.json';
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const manifestCheck = TypeCompiler.Compile(FeedManifestSchema);

/** A real calendar day written YYYY-MM-DD (also keeps path segments safe). */
export function isSnapshotDate(value: unknown): value is string {
  if (typeof value !== 'string' || !DATE.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}

export function snapshotDir(dir: string, feed: FeedName, date: string): string {
  return path.join(dir, feed, date);
}

export interface WriteSnapshotInput {
  /** `<dataDir>/feeds`. */
  dir: string;
  feed: FeedName;
  /** UTC day, YYYY-MM-DD. */
  date: string;
  rows: RowSource;
  /** RFC 3339 UTC timestamp of the build. */
  generatedAt: string;
  datasetVersion: number;
  /** Rows sorted in memory before a run is spilled to disk (bounds memory). */
  runSize?: number;
  /** With it, an invalid row is skipped and reported here; without it, one throws (sort-rows.ts). */
  onInvalidRow?: (reason: string) => void;
}

export interface WriteSnapshotResult {
  manifest: FeedManifest;
  /** False when the day already had a snapshot: it was returned untouched and `rows` not read. */
  created: boolean;
}

async function fsyncPath(p: string): Promise<void> {
  const fh = await open(p, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Refuses a snapshot input that could not make a valid snapshot (TypeError). */
function checkSnapshotInput(input: WriteSnapshotInput): void {
  const { feed, date, generatedAt, datasetVersion } = input;
  if (!isFeedName(feed)) throw new TypeError(`unknown feed ${JSON.stringify(feed)}`);
  if (!isSnapshotDate(date))
    throw new TypeError(`snapshot date must be YYYY-MM-DD, got ${JSON.stringify(date)}`);
  if (!Number.isFinite(Date.parse(generatedAt)))
    throw new TypeError('generatedAt must be an RFC 3339 timestamp');
  if (!Number.isInteger(datasetVersion) || datasetVersion < 0)
    throw new TypeError('datasetVersion must be >= 0');
}

/** Sorts the input rows as binary records (spilling next to the snapshots) and encodes them into every file. */
async function encodeRows(input: WriteSnapshotInput, files: SnapshotFiles, spillDir: string): Promise<void> {
  for await (const batch of sortFeedRecords(input.rows, {
    spillDir,
    runSize: input.runSize,
    ...(input.onInvalidRow ? { onInvalid: input.onInvalidRow } : {}),
  }))
    await files.add(batch);
}

async function writeManifest(tmp: string, manifest: FeedManifest): Promise<void> {
  const mfh = await open(path.join(tmp, MANIFEST_FILE), 'wx');
  try {
    await mfh.writeFile(`${JSON.stringify(manifest, null, 2)}\n`);
    await mfh.sync();
  } finally {
    await mfh.close();
  }
}

/**
 * Renames the finished temporary directory into place; the manifest that stands (another
 * writer's when it finished the same day first), or null when this one was published.
 */
async function publish(
  tmp: string,
  input: WriteSnapshotInput,
  feedDir: string,
): Promise<FeedManifest | null> {
  const { dir, feed, date } = input;
  // mkdtemp creates 0700; the published snapshot is readable like any data file.
  await chmod(tmp, 0o755);
  await fsyncPath(tmp);
  try {
    await rename(tmp, snapshotDir(dir, feed, date));
  } catch (err) {
    // Another writer finished the same day first: theirs stands.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
    const winner = await readFeedManifest(dir, feed, date);
    if (!winner) throw err;
    return winner;
  }
  await fsyncPath(feedDir);
  return null;
}

/**
 * Writes the day's snapshot of a feed: the eight encoded files and manifest.json under
 * `<dir>/<feed>/<date>/`. Files are built in a temporary directory, fsynced, and the directory is
 * renamed into place, so a snapshot is either whole or absent. An existing day is never
 * overwritten: its manifest is returned instead.
 */
export async function writeFeedSnapshot(input: WriteSnapshotInput): Promise<WriteSnapshotResult> {
  checkSnapshotInput(input);
  const { dir, feed, date, generatedAt, datasetVersion } = input;
  const existing = await readFeedManifest(dir, feed, date);
  if (existing) return { manifest: existing, created: false };

  const feedDir = path.join(dir, feed);
  await mkdir(feedDir, { recursive: true });
  const tmp = await mkdtemp(path.join(feedDir, `.tmp-${date}-`));
  const def = feedDefinition(feed);
  const files = new SnapshotFiles(feed);
  try {
    await files.open(tmp, { feed: def, date, generatedAt, datasetVersion });
    await encodeRows(input, files, feedDir);
    await files.finish();
    const entries = files.entries();
    const manifest: FeedManifest = {
      feed,
      title: def.title,
      tier: def.tier,
      license: def.license,
      generated_at: generatedAt,
      snapshot_date: date,
      row_count: files.rowCount,
      sha256: entries.csv.sha256,
      dataset_version: datasetVersion,
      files: entries,
    };
    await writeManifest(tmp, manifest);
    await files.closeFormats();
    const winner = await publish(tmp, input, feedDir);
    return winner ? { manifest: winner, created: false } : { manifest, created: true };
  } finally {
    await files.closeAll();
    await rm(tmp, { recursive: true, force: true });
  }
}

async function readManifestFile(file: string): Promise<FeedManifest | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const value: unknown = JSON.parse(text);
  if (!manifestCheck.Check(value))
    throw new Error(`feed manifest ${file} does not match the manifest schema`);
  return value;
}

/** Snapshot days of a feed that have a manifest, oldest first. */
export async function listFeedSnapshots(dir: string, feed: FeedName): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(path.join(dir, feed));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names.filter(isSnapshotDate).sort();
}

/** The manifest of one day's snapshot, or of the latest one when `date` is omitted; null when there is none. */
export async function readFeedManifest(
  dir: string,
  feed: FeedName,
  date?: string,
): Promise<FeedManifest | null> {
  if (date !== undefined) {
    if (!isSnapshotDate(date)) return null;
    return readManifestFile(path.join(snapshotDir(dir, feed, date), MANIFEST_FILE));
  }
  const days = await listFeedSnapshots(dir, feed);
  for (let i = days.length - 1; i >= 0; i--) {
    const m = await readManifestFile(path.join(snapshotDir(dir, feed, days[i] as string), MANIFEST_FILE));
    if (m) return m;
  }
  return null;
}
