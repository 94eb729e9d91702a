import { createHash, type Hash } from 'node:crypto';
import {
  chmod,
  type FileHandle,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rename,
  rm,
} from 'node:fs/promises';
import path from 'node:path';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { FEED_INCLUDES, feedDefinition, feedDownloadPath, feedFileName, isFeedName } from './catalog.ts';
import { ByteSink } from './encoders/byte-sink.ts';
import type { EncodeContext, FeedEncoder } from './encoders/encoder.ts';
import { ENCODERS } from './encoders/registry.ts';
import type { CanonicalRow } from './row.ts';
import { type RowSource, sortFeedRowBatches } from './sort-rows.ts';
import {
  FEED_FORMATS,
  type FeedFile,
  type FeedFormat,
  type FeedManifest,
  FeedManifestSchema,
  type FeedName,
} from './types.ts';

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

interface OpenFile {
  format: FeedFormat;
  encoder: FeedEncoder;
  fh: FileHandle;
  hash: Hash;
  bytes: number;
  /** Encoded, not yet hashed nor written. */
  out: ByteSink;
  /** The write in flight (one per file), awaited before the next one and at the end. */
  writing: Promise<unknown>;
}

/** Encoded bytes are hashed and written once this many are held for a file. */
const WRITE_BYTES = 1 << 20;
/** A file's buffer: a write's worth and room for the batch that fills it. */
const SINK_BYTES = WRITE_BYTES + (WRITE_BYTES >> 1);

/** Encodes a batch of rows into one file's buffer: bytes in place, no string per row (byte-sink.ts). */
function encodeBatch(f: OpenFile, rows: readonly CanonicalRow[]): void {
  const { encoder, out } = f;
  for (let i = 0; i < rows.length; i++) encoder.row(rows[i] as CanonicalRow, out);
}

/**
 * Hashes and starts writing a file's held bytes once enough are held (or `all`), after its
 * previous write: encoding goes on while the bytes are written.
 */
async function drain(f: OpenFile, all = false): Promise<void> {
  if (f.out.pos === 0 || (!all && f.out.pos < WRITE_BYTES)) return;
  const buf = f.out.take(all ? 0 : SINK_BYTES);
  f.hash.update(buf);
  f.bytes += buf.length;
  await f.writing;
  f.writing = f.fh.write(buf);
  // Handled here so a failure waits, unreported, for the next await of f.writing, which throws it.
  f.writing.catch(() => {});
}

async function fsyncPath(p: string): Promise<void> {
  const fh = await open(p, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Writes the day's snapshot of a feed: the eight encoded files and manifest.json under
 * `<dir>/<feed>/<date>/`. Files are built in a temporary directory, fsynced, and the directory is
 * renamed into place, so a snapshot is either whole or absent. An existing day is never
 * overwritten: its manifest is returned instead.
 */
export async function writeFeedSnapshot(input: WriteSnapshotInput): Promise<WriteSnapshotResult> {
  const { dir, feed, date, generatedAt, datasetVersion } = input;
  if (!isFeedName(feed)) throw new TypeError(`unknown feed ${JSON.stringify(feed)}`);
  if (!isSnapshotDate(date))
    throw new TypeError(`snapshot date must be YYYY-MM-DD, got ${JSON.stringify(date)}`);
  if (!Number.isFinite(Date.parse(generatedAt)))
    throw new TypeError('generatedAt must be an RFC 3339 timestamp');
  if (!Number.isInteger(datasetVersion) || datasetVersion < 0)
    throw new TypeError('datasetVersion must be >= 0');

  const existing = await readFeedManifest(dir, feed, date);
  if (existing) return { manifest: existing, created: false };

  const feedDir = path.join(dir, feed);
  await mkdir(feedDir, { recursive: true });
  const tmp = await mkdtemp(path.join(feedDir, `.tmp-${date}-`));
  const def = feedDefinition(feed);
  const ctx: EncodeContext = { feed: def, date, generatedAt, datasetVersion };
  const files: OpenFile[] = [];
  const side = new Map<string, OpenFile>();
  try {
    const openFile = async (name: string, format: FeedFormat): Promise<OpenFile> => {
      const encoder = ENCODERS[format](ctx);
      const fh = await open(path.join(tmp, name), 'wx');
      const f: OpenFile = {
        format,
        encoder,
        fh,
        hash: createHash('sha256'),
        bytes: 0,
        out: new ByteSink(SINK_BYTES),
        writing: Promise.resolve(),
      };
      f.out.text(encoder.header());
      return f;
    };
    for (const format of FEED_FORMATS) files.push(await openFile(feedFileName(feed, format), format));
    // Rows of an include kind go to their own csv beside the files (catalog.ts FEED_INCLUDES).
    for (const inc of Object.values(FEED_INCLUDES[feed] ?? {}))
      side.set(inc.kind, await openFile(inc.file, 'csv'));
    let rowCount = 0;
    for await (const batch of sortFeedRowBatches(input.rows, {
      spillDir: feedDir,
      runSize: input.runSize,
      ...(input.onInvalidRow ? { onInvalid: input.onInvalidRow } : {}),
    })) {
      let main = batch;
      if (side.size > 0) {
        main = [];
        const extra = new Map<OpenFile, CanonicalRow[]>();
        for (const c of batch) {
          const f = side.get(c.row.kind);
          if (!f) main.push(c);
          else {
            const list = extra.get(f);
            if (list) list.push(c);
            else extra.set(f, [c]);
          }
        }
        for (const [f, rows] of extra) encodeBatch(f, rows);
      }
      rowCount += main.length;
      for (const f of files) encodeBatch(f, main);
      // One await for all files: their writes overlap each other and the next batch's encoding.
      await Promise.all([...files, ...side.values()].map((f) => drain(f)));
    }
    const finish = async (f: OpenFile) => {
      f.out.text(f.encoder.footer());
      await drain(f, true);
      await f.writing;
      await f.fh.sync();
    };
    await Promise.all([...files, ...side.values()].map(finish));
    for (const f of side.values()) await f.fh.close();
    const entries = {} as Record<FeedFormat, FeedFile>;
    for (const f of files) {
      entries[f.format] = {
        path: feedDownloadPath(feed, f.format),
        sha256: f.hash.digest('hex'),
        bytes: f.bytes,
      };
    }
    const manifest: FeedManifest = {
      feed,
      title: def.title,
      tier: def.tier,
      license: def.license,
      generated_at: generatedAt,
      snapshot_date: date,
      row_count: rowCount,
      sha256: entries.csv.sha256,
      dataset_version: datasetVersion,
      files: entries,
    };
    const mfh = await open(path.join(tmp, MANIFEST_FILE), 'wx');
    try {
      await mfh.writeFile(`${JSON.stringify(manifest, null, 2)}\n`);
      await mfh.sync();
    } finally {
      await mfh.close();
    }
    await Promise.all(files.map((f) => f.fh.close()));
    files.length = 0;
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
      return { manifest: winner, created: false };
    }
    await fsyncPath(feedDir);
    return { manifest, created: true };
  } finally {
    await Promise.all([...files, ...side.values()].map((f) => f.fh.close()));
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
