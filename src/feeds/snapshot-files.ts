/**
 * The files of a snapshot being written (snapshot.ts): the eight formats and any include file
 * (catalog.ts FEED_INCLUDES), each encoded batch by batch into one of its two buffers (byte-sink.ts),
 * hashed and written in large writes from it while the next batch is encoded into the other.
 */
import { createHash, type Hash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { FEED_INCLUDES, feedDownloadPath, feedFileName } from './catalog.ts';
import { ByteSink } from './encoders/byte-sink.ts';
import type { EncodeContext, FeedEncoder } from './encoders/encoder.ts';
import { ENCODERS } from './encoders/registry.ts';
import { RecordCursor } from './record-cursor.ts';
import type { RecordBatch } from './record-runs.ts';
import { FEED_FORMATS, type FeedFile, type FeedFormat, type FeedName } from './types.ts';

interface OpenFile {
  format: FeedFormat;
  encoder: FeedEncoder;
  fh: FileHandle;
  hash: Hash;
  bytes: number;
  /** Encoded, not yet hashed nor written. */
  out: ByteSink;
  /** The buffer of the write in flight, `out` again once it is done. */
  spare: ByteSink;
  /** The write in flight (one per file), awaited before the next one and at the end. */
  writing: Promise<unknown>;
}

/** Encoded bytes are hashed and written once this many are held for a file. */
const WRITE_BYTES = 1 << 18;
/**
 * A file's buffer to start with, reused; it grows to what a batch of the format needs (a json
 * batch: about 530 KB; a plain one: about 70 KB), so the short formats hold little.
 */
const SINK_BYTES = 1 << 18;

/**
 * Hashes and starts writing a file's held bytes once enough are held (or `all`), after its
 * previous write: encoding goes on into the file's other buffer while the bytes are written.
 */
async function drain(f: OpenFile, all = false): Promise<void> {
  if (f.out.pos === 0 || (!all && f.out.pos < WRITE_BYTES)) return;
  await f.writing;
  const full = f.out;
  f.out = f.spare;
  f.spare = full;
  const bytes = full.buf.subarray(0, full.pos);
  full.pos = 0;
  f.hash.update(bytes);
  f.bytes += bytes.length;
  f.writing = f.fh.write(bytes);
  // Handled here so a failure waits, unreported, for the next await of f.writing, which throws it.
  f.writing.catch(() => {});
}

async function openFile(
  dir: string,
  name: string,
  format: FeedFormat,
  ctx: EncodeContext,
): Promise<OpenFile> {
  const encoder = ENCODERS[format](ctx);
  const fh = await open(path.join(dir, name), 'wx');
  const f: OpenFile = {
    format,
    encoder,
    fh,
    hash: createHash('sha256'),
    bytes: 0,
    out: new ByteSink(SINK_BYTES),
    spare: new ByteSink(SINK_BYTES),
    writing: Promise.resolve(),
  };
  f.out.text(encoder.header());
  return f;
}

/** Every file of one snapshot: the formats, and the include files by the row kind they take. */
export class SnapshotFiles {
  private readonly files: OpenFile[] = [];
  private readonly side = new Map<string, OpenFile>();
  /** Rows in the formats (include rows are not counted). */
  rowCount = 0;
  private cursor: RecordCursor | null = null;
  /** The fields of the last include lookup (includeOf) and where they went. */
  private routedFields: RecordCursor['shared'] | null = null;
  private routedTo: OpenFile | null = null;

  constructor(private readonly feed: FeedName) {}

  /** Creates the files in `dir` (the snapshot's temporary directory), headers encoded. */
  async open(dir: string, ctx: EncodeContext): Promise<void> {
    const feed = this.feed;
    for (const format of FEED_FORMATS)
      this.files.push(await openFile(dir, feedFileName(feed, format), format, ctx));
    // Rows of an include kind go to their own csv beside the files (catalog.ts FEED_INCLUDES).
    for (const inc of Object.values(FEED_INCLUDES[feed] ?? {}))
      this.side.set(inc.kind, await openFile(dir, inc.file, 'csv', ctx));
  }

  private all(): OpenFile[] {
    return [...this.files, ...this.side.values()];
  }

  /** The include file the cursor's row goes to, or null for the formats (by kind, looked up once per run of equal fields). */
  private includeOf(r: RecordCursor): OpenFile | null {
    if (r.shared !== this.routedFields) {
      this.routedFields = r.shared;
      this.routedTo = this.side.get(r.shared.kind) ?? null;
    }
    return this.routedTo;
  }

  /** Encodes a batch of records in canonical order into every file, each record read once. */
  async add(batch: RecordBatch): Promise<void> {
    const { bufs, offsets } = batch;
    if (this.cursor?.fields !== batch.fields) this.cursor = new RecordCursor(batch.fields);
    const r = this.cursor;
    const files = this.files;
    const routed = this.side.size > 0;
    for (let i = 0; i < offsets.length; i++) {
      r.at(bufs[i] as Buffer, offsets[i] as number);
      const include = routed ? this.includeOf(r) : null;
      if (include) include.encoder.row(r, include.out);
      else {
        this.rowCount++;
        for (let k = 0; k < files.length; k++) {
          const f = files[k] as OpenFile;
          f.encoder.row(r, f.out);
        }
      }
    }
    // One await for all files: their writes overlap each other and the next batch's encoding.
    await Promise.all(this.all().map((f) => drain(f)));
  }

  /** Footers written, every byte on disk and fsynced; the include files closed. */
  async finish(): Promise<void> {
    const finish = async (f: OpenFile) => {
      f.out.text(f.encoder.footer());
      await drain(f, true);
      await f.writing;
      await f.fh.sync();
    };
    await Promise.all(this.all().map(finish));
    for (const f of this.side.values()) await f.fh.close();
  }

  /** The manifest's entry of each format: download path, SHA-256, size. */
  entries(): Record<FeedFormat, FeedFile> {
    const entries = {} as Record<FeedFormat, FeedFile>;
    for (const f of this.files) {
      entries[f.format] = {
        path: feedDownloadPath(this.feed, f.format),
        sha256: f.hash.digest('hex'),
        bytes: f.bytes,
      };
    }
    return entries;
  }

  /** Closes the format files (after the manifest is written). */
  async closeFormats(): Promise<void> {
    await Promise.all(this.files.map((f) => f.fh.close()));
    this.files.length = 0;
  }

  /** Closes whatever is still open (after a failure; closing twice is harmless). */
  async closeAll(): Promise<void> {
    await Promise.all(this.all().map((f) => f.fh.close()));
  }
}
