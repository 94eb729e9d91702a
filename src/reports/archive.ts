/**
 * Compressed reports: gzip (RFC 1952) and zip holding exactly one file. Both are inflated under a
 * byte cap, chunk by chunk, so a bomb is refused after `cap` bytes of output, never held whole.
 */
import zlib from 'node:zlib';
import { Unzip, type UnzipFile, UnzipInflate } from 'fflate';
import { AppError } from '../core/errors.ts';

export const GZIP_MAGIC = [0x1f, 0x8b] as const;
/** "PK": a local file header (03 04) or, in an empty archive, the end of the central directory (05 06). */
export const ZIP_MAGIC = [0x50, 0x4b] as const;

export function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

function tooLarge(cap: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `the report inflates past ${cap} bytes`);
}

/** The bytes without trailing line ends (Mimecast appends a CRLF after the gzip trailer). */
function trimLineEnds(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 0x0d || bytes[end - 1] === 0x0a)) end--;
  return bytes.subarray(0, end);
}

function gunzipOnce(bytes: Uint8Array, cap: number): Buffer {
  try {
    return zlib.gunzipSync(bytes, { maxOutputLength: cap });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(cap);
    throw new AppError('INVALID_REPORT', `gzip: ${(err as Error).message}`);
  }
}

/**
 * Gunzips under a cap. zlib checks the CRC and the length and refuses a truncated member. A
 * member followed by line ends is read again without them: Mimecast's reports end with a CRLF
 * after the gzip trailer, which zlib takes for a broken second member.
 */
export function gunzipCapped(bytes: Uint8Array, cap: number): Buffer {
  try {
    return gunzipOnce(bytes, cap);
  } catch (err) {
    const trimmed = trimLineEnds(bytes);
    if (trimmed.length === bytes.length || (err as AppError).code !== 'INVALID_REPORT') throw err;
    return gunzipOnce(trimmed, cap);
  }
}

interface ZipEntry {
  name: string;
  chunks: Uint8Array[];
  size: number;
  complete: boolean;
}

/** A zip entry's name that could not be meant as one plain file: a path, a parent, a device. */
function unsafeName(name: string): boolean {
  if (name === '' || [...name].some((c) => c.charCodeAt(0) < 0x20)) return true;
  return /[/\\]|^\.\.?$|^[a-z]:/i.test(name);
}

function readEntry(file: UnzipFile, entry: ZipEntry, cap: number): void {
  file.ondata = (err, chunk, final) => {
    if (err) throw new AppError('INVALID_REPORT', `zip: ${err.message}`);
    entry.size += chunk.length;
    if (entry.size > cap) throw tooLarge(cap);
    entry.chunks.push(chunk);
    if (final) entry.complete = true;
  };
  file.start();
}

/**
 * The one file of a zip, inflated under the cap. Refused: no file, more than one, a name with a
 * path or parent reference (zip slip), an unknown compression method, a truncated entry.
 */
export function unzipSingle(bytes: Uint8Array, cap: number): { name: string; bytes: Buffer } {
  const entries: ZipEntry[] = [];
  const unzip = new Unzip((file) => {
    if (file.name.endsWith('/')) return;
    const entry: ZipEntry = { name: file.name, chunks: [], size: 0, complete: false };
    entries.push(entry);
    if (entries.length > 1) throw new AppError('INVALID_REPORT', 'zip: more than one file inside');
    if (unsafeName(file.name)) throw new AppError('INVALID_REPORT', 'zip: the file name is a path');
    if (file.originalSize !== undefined && file.originalSize > cap) throw tooLarge(cap);
    readEntry(file, entry, cap);
  });
  unzip.register(UnzipInflate);
  try {
    unzip.push(bytes, true);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('INVALID_REPORT', `zip: ${(err as Error).message}`);
  }
  const [entry] = entries;
  if (!entry) throw new AppError('INVALID_REPORT', 'zip: no file inside');
  if (!entry.complete) throw new AppError('INVALID_REPORT', 'zip: the file inside is truncated');
  return { name: entry.name, bytes: Buffer.concat(entry.chunks) };
}
