import { createReadStream, existsSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { AppError } from '../core/errors.ts';
import {
  FEED_INCLUDES,
  FORMATS,
  feedDefinition,
  feedFileName,
  isEntitled,
  isFeedFormat,
  isFeedName,
} from './catalog.ts';
import { encodeCanonicalRows } from './encode.ts';
import { type CanonicalRow, canonicalizeRow, compareRows } from './row.ts';
import { isSnapshotDate, readFeedManifest, snapshotDir } from './snapshot.ts';
import {
  FEED_FORMATS,
  type FeedFormat,
  type FeedManifest,
  type FeedName,
  type FeedRow,
  type KeyTier,
} from './types.ts';

export interface FeedDownload {
  stream: Readable;
  contentType: string;
  /** Suggested file name (Content-Disposition). */
  fileName: string;
  manifest: FeedManifest;
  /** The stored file's SHA-256 (the ETag); null for a brand-filtered download, which is encoded on the fly. */
  sha256: string | null;
  /** Content-Length; null for a brand-filtered download. */
  bytes: number | null;
  /** The snapshot's generated_at (Last-Modified). */
  lastModified: string;
  /** The brand filter applied, as given (trimmed); null without one. */
  brand: string | null;
  /** The extra rows added (`include`, catalog.ts FEED_INCLUDES); null without. */
  include: string | null;
}

/**
 * The feed a key of `tier` asks for: unknown feed NOT_FOUND; premium feed on a free or starter key
 * FORBIDDEN (spec §4 rule 6, CONTRACT §3).
 */
export function entitledFeed(feed: string, tier: KeyTier): FeedName {
  if (!isFeedName(feed)) throw new AppError('NOT_FOUND', `unknown feed ${feed.slice(0, 64)}`);
  if (!isEntitled(feedDefinition(feed), tier))
    throw new AppError('FORBIDDEN', `feed ${feed} is premium: it needs a pro or enterprise key`);
  return feed;
}

/** The manifest of a feed's latest snapshot, or of one day's: NOT_READY before the first build, NOT_FOUND for a missing day. */
export async function requireFeedManifest(dir: string, feed: FeedName, date?: string): Promise<FeedManifest> {
  if (date !== undefined && !isSnapshotDate(date))
    throw new AppError('INVALID_PARAMETER', 'date must be a day written YYYY-MM-DD');
  const manifest = await readFeedManifest(dir, feed, date);
  if (manifest) return manifest;
  throw missingSnapshot(feed, date);
}

/** No snapshot for the day asked for: NOT_FOUND; no snapshot at all yet: NOT_READY. */
export function missingSnapshot(feed: FeedName, date?: string): AppError {
  if (date !== undefined) return new AppError('NOT_FOUND', `feed ${feed} has no snapshot for ${date}`);
  return new AppError(
    'NOT_READY',
    `feed ${feed} has no snapshot yet: snapshots are built once a day from the dataset and the store ` +
      '(see `netrep dataset build` and `netrep feeds build`)',
  );
}

const BRAND = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

/** Reads a snapshot's csv file back into rows (the csv is the snapshot's checksummed record). */
export async function* readSnapshotRows(
  dir: string,
  feed: FeedName,
  date: string,
  fileName: string = feedFileName(feed, 'csv'),
): AsyncGenerator<FeedRow> {
  const file = path.join(snapshotDir(dir, feed, date), fileName);
  const parser = createReadStream(file).pipe(parse({ columns: true }));
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    const row: FeedRow = {
      network: record.network ?? '',
      kind: record.kind ?? '',
      source: record.source ?? '',
      first_seen: record.first_seen ?? '',
      last_seen: record.last_seen ?? '',
    };
    if (record.brand) row.brand = record.brand;
    if (record.asn) row.asn = Number(record.asn);
    yield row;
  }
}

async function* filterBrand(
  rows: AsyncIterable<FeedRow>,
  brand: string | null,
): AsyncGenerator<CanonicalRow> {
  const wanted = brand?.toLowerCase() ?? null;
  for await (const row of rows)
    if (wanted === null || row.brand?.toLowerCase() === wanted) yield canonicalizeRow(row);
}

/** Two canonically sorted row streams as one (the snapshot's rows and an include file's). */
async function* mergeSorted(
  a: AsyncIterable<CanonicalRow>,
  b: AsyncIterable<CanonicalRow>,
): AsyncGenerator<CanonicalRow> {
  const ia = a[Symbol.asyncIterator]();
  const ib = b[Symbol.asyncIterator]();
  let x = await ia.next();
  let y = await ib.next();
  while (!x.done || !y.done) {
    if (y.done || (!x.done && compareRows(x.value, y.value) <= 0)) {
      yield x.value as CanonicalRow;
      x = await ia.next();
    } else {
      yield y.value;
      y = await ib.next();
    }
  }
}

/**
 * Opens one format of a feed snapshot (the latest when `date` is undefined) for download.
 * Unknown feed: AppError NOT_FOUND; unknown format, bad date or bad brand: AppError INVALID_PARAMETER;
 * no snapshot yet: null. With `brand` (feeds with brands only), rows of other brands are dropped
 * (case-insensitive) and the file is encoded on the fly from the snapshot's csv rows; `include`
 * (catalog.ts FEED_INCLUDES: `search` on ai_crawlers) adds the rows kept beside the files, the
 * same way.
 */
export async function openFeedFile(
  dir: string,
  feed: string,
  date: string | undefined,
  format: string,
  options: { brand?: string; include?: string } = {},
): Promise<FeedDownload | null> {
  if (!isFeedName(feed)) throw new AppError('NOT_FOUND', `unknown feed ${feed.slice(0, 64)}`);
  if (!isFeedFormat(format))
    throw new AppError(
      'INVALID_PARAMETER',
      `unknown format ${format.slice(0, 32)}: one of ${FEED_FORMATS.join(', ')}`,
    );
  if (date !== undefined && !isSnapshotDate(date))
    throw new AppError('INVALID_PARAMETER', 'date must be YYYY-MM-DD');
  const brand = brandFilter(feed, options.brand);
  const include = includeOf(feed, options.include);
  const manifest = await readFeedManifest(dir, feed, date);
  if (!manifest) return null;
  const base = {
    contentType: FORMATS[format].contentType,
    fileName: feedFileName(feed, format),
    manifest,
    lastModified: manifest.generated_at,
  };
  if (brand === null && include === null) {
    const file = path.join(snapshotDir(dir, feed, manifest.snapshot_date), feedFileName(feed, format));
    const info = manifest.files[format];
    return {
      ...base,
      stream: createReadStream(file),
      sha256: info.sha256,
      bytes: info.bytes,
      brand: null,
      include: null,
    };
  }
  const stream = encodedOnTheFly(dir, feed, format, manifest, brand, include?.file ?? null);
  return { ...base, stream, sha256: null, bytes: null, brand, include: include?.name ?? null };
}

/** The brand a download asks for (trimmed), null without one; INVALID_PARAMETER on a feed without brands or a bad brand. */
function brandFilter(feed: FeedName, asked: string | undefined): string | null {
  if (asked === undefined) return null;
  if (!feedDefinition(feed).has_brand)
    throw new AppError('INVALID_PARAMETER', `feed ${feed} has no brand filter`);
  const brand = asked.trim();
  if (!BRAND.test(brand))
    throw new AppError('INVALID_PARAMETER', 'brand must be 1-64 letters, digits, space . _ -');
  return brand;
}

/** The include a download asks for and its file, null without one; INVALID_PARAMETER for one the feed does not have. */
function includeOf(feed: FeedName, asked: string | undefined): { name: string; file: string } | null {
  if (asked === undefined) return null;
  const known = FEED_INCLUDES[feed] ?? {};
  const name = asked.trim();
  const inc = known[name];
  if (inc) return { name, file: inc.file };
  const names = Object.keys(known);
  throw new AppError(
    'INVALID_PARAMETER',
    names.length === 0
      ? `feed ${feed} has no include parameter`
      : `include must be one of: ${names.join(', ')}`,
  );
}

/** A format encoded from the snapshot's csv rows (of one brand, with an include file's rows merged in). */
function encodedOnTheFly(
  dir: string,
  feed: FeedName,
  format: FeedFormat,
  manifest: FeedManifest,
  brand: string | null,
  includeFile: string | null,
): Readable {
  const day = manifest.snapshot_date;
  const ctx = {
    feed: feedDefinition(feed),
    date: day,
    generatedAt: manifest.generated_at,
    datasetVersion: manifest.dataset_version,
  };
  let rows = filterBrand(readSnapshotRows(dir, feed, day), brand);
  // A snapshot written before the include file existed has no such rows to add.
  if (includeFile && existsSync(path.join(snapshotDir(dir, feed, day), includeFile)))
    rows = mergeSorted(rows, filterBrand(readSnapshotRows(dir, feed, day, includeFile), brand));
  return Readable.from(encodeCanonicalRows(format, rows, ctx), { objectMode: false });
}
