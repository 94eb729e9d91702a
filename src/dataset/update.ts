/**
 * `dataset update`: download upstream files to `<dataDir>/upstream/<path>` (each streamed to a
 * temp file and renamed, so a failed download keeps the previous copy), then build from there.
 * NETREP_DATASET_SOURCES names a JSON file `{ "<source id>": "<url>", ... }`; when set, it is
 * the complete list of what is downloaded.
 */
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { datasetsDir } from './snapshot.ts';
import { type SourceSpec, UPSTREAM_SOURCES } from './sources.ts';

export function upstreamDir(dataDir: string): string {
  return path.join(dataDir, 'upstream');
}

export function resolveSources(overrideFile: string): SourceSpec[] {
  if (!overrideFile) return [...UPSTREAM_SOURCES];
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(overrideFile, 'utf8'));
  } catch (err) {
    throw new Error(`NETREP_DATASET_SOURCES: cannot read ${overrideFile}: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new Error('NETREP_DATASET_SOURCES: expected a JSON object mapping source ids to URLs');
  }
  const out: SourceSpec[] = [];
  for (const [id, url] of Object.entries(doc)) {
    const spec = UPSTREAM_SOURCES.find((s) => s.id === id);
    if (!spec) throw new Error(`NETREP_DATASET_SOURCES: unknown source id "${id}"`);
    if (typeof url !== 'string' || !/^https?:\/\//.test(url))
      throw new Error(`NETREP_DATASET_SOURCES: "${id}" needs an http(s) URL`);
    out.push({ ...spec, url });
  }
  return out;
}

export interface DownloadResult {
  id: string;
  ok: boolean;
  bytes: number;
  error?: string;
}

/**
 * Streams one URL to `target` through `<target>.download` and a rename: a refused, empty,
 * short (fewer bytes than Content-Length) or cut-off body leaves the previous copy untouched
 * and no temp file behind.
 */
async function downloadOne(url: string, target: string, timeoutMs: number): Promise<number> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  } catch (err) {
    // fetch says only "fetch failed"; the cause says why (ECONNREFUSED, a DNS failure, a timeout).
    throw new Error(withCause(err));
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    throw new Error(`HTTP ${res.status}`);
  }
  mkdirSync(path.dirname(target), { recursive: true });
  const tmp = `${target}.download`;
  let bytes = 0;
  try {
    const counted = Readable.fromWeb(res.body as NodeReadableStream<Uint8Array>).on(
      'data',
      (chunk: Buffer) => {
        bytes += chunk.length;
      },
    );
    await pipeline(counted, createWriteStream(tmp));
    const declared = res.headers.get('content-length');
    // With gzip or brotli on the wire, fetch hands over the decoded body: no length to compare.
    if (declared !== null && !res.headers.get('content-encoding') && Number(declared) !== bytes)
      throw new Error(`got ${bytes} of ${declared} bytes`);
    if (bytes === 0) throw new Error('empty body');
    renameSync(tmp, target);
    return bytes;
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new Error(withCause(err));
  }
}

function withCause(err: unknown): string {
  const cause = (err as { cause?: { message?: string } }).cause?.message;
  return cause ? `${(err as Error).message} (${cause})` : (err as Error).message;
}

export async function downloadSources(options: {
  dataDir: string;
  sources: readonly SourceSpec[];
  timeoutMs?: number;
  onResult?: (r: DownloadResult) => void;
}): Promise<DownloadResult[]> {
  const root = upstreamDir(options.dataDir);
  const results: DownloadResult[] = [];
  for (const spec of options.sources) {
    const target = path.join(root, spec.path);
    let result: DownloadResult;
    try {
      const bytes = await downloadOne(spec.url, target, options.timeoutMs ?? 300_000);
      result = { id: spec.id, ok: true, bytes };
    } catch (err) {
      const kept = existsSync(target) ? ' (previous copy kept)' : '';
      result = { id: spec.id, ok: false, bytes: 0, error: `${(err as Error).message}${kept}` };
    }
    results.push(result);
    options.onResult?.(result);
  }
  return results;
}

/**
 * One updater per data dir at a time (several instances may share it): `<dataDir>/datasets/
 * .update.lock` is created exclusively and holds the owner's host and pid. A lock whose owner
 * process is gone (same host) or that is older than `staleMs` (another host that died) is
 * taken over. Returns the release function, or null while another live updater holds it.
 */
export function acquireUpdateLock(
  dataDir: string,
  options: { now: number; staleMs?: number },
): (() => void) | null {
  const dir = datasetsDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, '.update.lock');
  const owner = { host: hostname(), pid: process.pid, since: new Date(options.now).toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(owner), { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (!lockIsStale(file, options.now, options.staleMs ?? 3 * 3_600_000)) return null;
    rmSync(file, { force: true });
  }
  return null;
}

function lockIsStale(file: string, now: number, staleMs: number): boolean {
  try {
    const held = JSON.parse(readFileSync(file, 'utf8')) as { host?: string; pid?: number; since?: string };
    if (now - Date.parse(held.since ?? '') > staleMs) return true;
    if (held.host !== hostname() || typeof held.pid !== 'number') return false;
    if (held.pid === process.pid) return false;
    process.kill(held.pid, 0);
    return false;
  } catch (err) {
    // ESRCH: the owner process is gone; a lock file that cannot be read is stale too.
    return (err as NodeJS.ErrnoException).code !== 'EPERM';
  }
}
