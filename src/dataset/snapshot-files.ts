/**
 * A snapshot directory's files against its manifest: each file's size and SHA-256 as the build
 * wrote them (`files`), the cheap size check of every load and the full hash check.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { SnapshotError } from './snapshot-error.ts';
import { tablesByteLength } from './table-file.ts';
import type { Manifest } from './types.ts';

/** Size and SHA-256 of one snapshot file, as the build wrote it (manifest `files`). */
export interface FileDigest {
  size: number;
  sha256: string;
}

export /** The files every snapshot holds (manifests written before 2026-11-27 list no `files`). */
const REQUIRED_FILES = ['tables.bin', 'strings.json', 'asns.json', 'provenance.json'] as const;

/** Bytes hashed between two yields to the event loop by the async load (about 1 ms of SHA-256). */
const HASH_CHUNK = 1024 * 1024;

function filesUnder(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...filesUnder(dir, rel));
    else if (e.isFile() && rel !== 'manifest.json') out.push(rel);
  }
  return out.sort();
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** Size and SHA-256 of every file of a snapshot directory but the manifest (written at build). */
export function digestSnapshotFiles(dir: string): Record<string, FileDigest> {
  const out: Record<string, FileDigest> = {};
  for (const rel of filesUnder(dir)) {
    const data = readFileSync(path.join(dir, rel));
    out[rel] = { size: data.byteLength, sha256: sha256(data) };
  }
  return out;
}

/** Whether a snapshot's manifest carries file digests (built on or after 2026-11-27). */
export function hasDigests(manifest: Manifest): boolean {
  return manifest.files !== undefined && Object.keys(manifest.files).length > 0;
}

/**
 * The cheap check of every load: each file the manifest lists is there with its size (older
 * manifests: the four data files are there and tables.bin has the size its sections give).
 * Throws SnapshotError naming the first file that is not.
 */
export function checkSnapshotSizes(dir: string, manifest: Manifest): void {
  const broken = (reason: string) => new SnapshotError(dir, manifest.version, reason);
  const sizeOf = (rel: string): number | null => {
    try {
      const st = statSync(path.join(dir, rel));
      return st.isFile() ? st.size : null;
    } catch {
      return null;
    }
  };
  const listed = manifest.files ?? {};
  for (const rel of new Set([...REQUIRED_FILES, ...Object.keys(listed)])) {
    const size = sizeOf(rel);
    if (size === null) throw broken(`${rel} is missing`);
    const want = listed[rel]?.size;
    if (want !== undefined && size !== want)
      throw broken(`${rel} is ${size} bytes, the manifest says ${want}`);
  }
  let tables: number;
  try {
    tables = tablesByteLength(manifest.sections);
  } catch (err) {
    throw broken((err as Error).message);
  }
  const size = sizeOf('tables.bin');
  if (size !== tables) throw broken(`tables.bin is ${size} bytes, its sections take ${tables}`);
}

export function hashMismatch(rel: string, digest: string, manifest: Manifest): string | null {
  const want = manifest.files?.[rel]?.sha256;
  return want !== undefined && want !== digest ? `${rel} does not match its SHA-256 in the manifest` : null;
}

/** The SHA-256 check of every listed file (the sync form: build, CLI, first load at start). */
export function checkSnapshotHashes(dir: string, manifest: Manifest, read?: Map<string, Buffer>): void {
  for (const rel of Object.keys(manifest.files ?? {}).sort()) {
    const data = read?.get(rel) ?? readFileSync(path.join(dir, rel));
    const bad = hashMismatch(rel, sha256(data), manifest);
    if (bad) throw new SnapshotError(dir, manifest.version, bad);
  }
}

/** SHA-256 of `data` in 1 MB slices, with a yield to the event loop after each. */
export async function sha256Chunked(data: Buffer): Promise<string> {
  const h = createHash('sha256');
  for (let at = 0; at < data.byteLength; at += HASH_CHUNK) {
    h.update(data.subarray(at, at + HASH_CHUNK));
    await yieldToLoop();
  }
  return h.digest('hex');
}
