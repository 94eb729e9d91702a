/**
 * Snapshot directories `<dataDir>/datasets/v<N>/`: manifest.json, tables.bin (typed arrays),
 * strings.json, asns.json, history.json. Immutable once renamed into place. A load refuses a
 * broken one with a SnapshotError (snapshot-files.ts: sizes and hashes; snapshot-tables.ts: the
 * tables' indexes).
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { parseJson, parseJsonListAsync } from './json-list.ts';
import type { Provenance } from './merge-context.ts';
import { SnapshotError } from './snapshot-error.ts';
import {
  checkSnapshotHashes,
  checkSnapshotSizes,
  hasDigests,
  hashMismatch,
  REQUIRED_FILES,
  sha256Chunked,
} from './snapshot-files.ts';
import {
  checkTables,
  familyTable,
  type HistoryFile,
  type RecordTable,
  roaTable,
  SNAPSHOT_FORMAT,
  type Snapshot,
} from './snapshot-tables.ts';
import { TableFile } from './table-file.ts';
import type { AsnEntry, Manifest } from './types.ts';

export { SnapshotError } from './snapshot-error.ts';
export { hasDigests } from './snapshot-files.ts';
export {
  type FamilyTable,
  type HistoryFile,
  NO_RECORD,
  type RoaTable,
  type Snapshot,
} from './snapshot-tables.ts';

const versionOfDir = (dir: string): number | null => {
  const m = /^v(\d+)$/.exec(path.basename(dir));
  return m ? Number(m[1]) : null;
};

function parseManifest(dir: string, text: string | null): Manifest {
  const version = versionOfDir(dir);
  if (text === null) throw new SnapshotError(dir, version, 'manifest.json is missing');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch (err) {
    throw new SnapshotError(dir, version, `manifest.json does not parse (${(err as Error).message})`);
  }
  if (manifest?.format !== SNAPSHOT_FORMAT)
    throw new Error(
      `snapshot ${dir} has format ${manifest?.format}, this netrep reads format ${SNAPSHOT_FORMAT}: run netrep dataset build`,
    );
  if (!Array.isArray(manifest.sections) || typeof manifest.counts !== 'object' || manifest.counts === null)
    throw new SnapshotError(dir, version, 'manifest.json lacks its section table or counts');
  return manifest;
}

function readManifest(dir: string): Manifest {
  let text: string | null = null;
  try {
    text = readFileSync(path.join(dir, 'manifest.json'), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return parseManifest(dir, text);
}

interface ParsedJson {
  strings: string[];
  asns: AsnEntry[];
  provenance: Provenance[];
}

function assemble(dir: string, manifest: Manifest, read: Map<string, Buffer>, parsed?: ParsedJson): Snapshot {
  const v = manifest.version;
  const buf = (rel: string) => read.get(rel) as Buffer;
  let t: TableFile;
  try {
    t = new TableFile(path.join(dir, 'tables.bin'), manifest.sections, buf('tables.bin'));
  } catch (err) {
    throw new SnapshotError(dir, v, (err as Error).message);
  }
  const snapshot = (): Snapshot => {
    const records: RecordTable = {
      count: manifest.counts.records,
      asn: t.u32('rec.asn'),
      org: t.u32('rec.org'),
      country: t.u16('rec.country'),
      whoisCountry: t.u16('rec.whoisCountry'),
      asnCountry: t.u16('rec.asnCountry'),
      rir: t.u8('rec.rir'),
      flags: t.u16('rec.flags'),
      cloud: t.u32('rec.cloud'),
      ai: t.u32('rec.ai'),
      geofeed: t.i32('rec.geofeed'),
      prov: t.u32('rec.prov'),
    };
    return {
      dir,
      version: manifest.version,
      createdAt: manifest.created_at,
      manifest,
      v4: familyTable(t, 4, manifest.counts.v4_intervals),
      v6: familyTable(t, 6, manifest.counts.v6_intervals),
      records,
      strings: parsed?.strings ?? parseJson<string[]>(dir, v, 'strings.json', buf('strings.json')),
      geofeeds: t.u32('geofeeds'),
      asns: parsed?.asns ?? parseJson<AsnEntry[]>(dir, v, 'asns.json', buf('asns.json')),
      provenance:
        parsed?.provenance ?? parseJson<Provenance[]>(dir, v, 'provenance.json', buf('provenance.json')),
      roas4: roaTable(t, 4),
      roas6: roaTable(t, 6),
    };
  };
  let s: Snapshot;
  try {
    s = snapshot();
  } catch (err) {
    if (err instanceof SnapshotError) throw err;
    throw new SnapshotError(dir, v, (err as Error).message);
  }
  checkTables(dir, s);
  return s;
}

export interface LoadOptions {
  /**
   * Check each listed file's SHA-256 (default true). The build turns it off for the snapshot it
   * has just written and hashed.
   */
  hashes?: boolean;
}

/**
 * Reads a snapshot, refusing a broken one with a SnapshotError before any table is used: sizes
 * against the manifest, SHA-256 of every listed file, then every stored index against the
 * table it points into.
 */
export function loadSnapshot(dir: string, options: LoadOptions = {}): Snapshot {
  const manifest = readManifest(dir);
  checkSnapshotSizes(dir, manifest);
  const read = new Map<string, Buffer>();
  for (const rel of REQUIRED_FILES) read.set(rel, readFileSync(path.join(dir, rel)));
  if (options.hashes !== false) checkSnapshotHashes(dir, manifest, read);
  return assemble(dir, manifest, read);
}

/**
 * loadSnapshot without holding the event loop for the reads and hashes: the files are read
 * asynchronously (libuv's thread pool), hashed in 1 MB slices and their JSON lists parsed in
 * 256 KB slices, with a yield to the event loop between slices; only the table checks run in one
 * piece (a few ms). A reload uses it.
 */
export async function loadSnapshotAsync(dir: string): Promise<Snapshot> {
  let text: string | null = null;
  try {
    text = await readFile(path.join(dir, 'manifest.json'), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const manifest = parseManifest(dir, text);
  checkSnapshotSizes(dir, manifest);
  const read = new Map<string, Buffer>();
  for (const rel of REQUIRED_FILES) read.set(rel, await readFile(path.join(dir, rel)));
  for (const rel of Object.keys(manifest.files ?? {}).sort()) {
    const data = read.get(rel) ?? (await readFile(path.join(dir, rel)));
    const bad = hashMismatch(rel, await sha256Chunked(data), manifest);
    if (bad) throw new SnapshotError(dir, manifest.version, bad);
  }
  const v = manifest.version;
  const parsed: ParsedJson = {
    strings: await parseJsonListAsync<string>(dir, v, 'strings.json', read.get('strings.json') as Buffer),
    asns: await parseJsonListAsync<AsnEntry>(dir, v, 'asns.json', read.get('asns.json') as Buffer),
    provenance: await parseJsonListAsync<Provenance>(
      dir,
      v,
      'provenance.json',
      read.get('provenance.json') as Buffer,
    ),
  };
  await yieldToLoop();
  return assemble(dir, manifest, read, parsed);
}

/** The `v<N>` directories by name alone, newest first (no file is read). */
export function snapshotDirs(dataDir: string): { version: number; dir: string }[] {
  const root = datasetsDir(dataDir);
  if (!existsSync(root)) return [];
  const out: { version: number; dir: string }[] = [];
  for (const name of readdirSync(root)) {
    const m = /^v(\d+)$/.exec(name);
    if (m) out.push({ version: Number(m[1]), dir: path.join(root, name) });
  }
  return out.sort((a, b) => b.version - a.version);
}

/** Whether a snapshot directory is of another format (skipped silently, not refused). */
export function isOtherFormat(dir: string): boolean {
  try {
    const m = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
    return m?.format !== SNAPSHOT_FORMAT;
  } catch {
    return false;
  }
}

/** A snapshot refused at load, with the reason. */
export interface RefusedSnapshot {
  version: number;
  reason: string;
}

/**
 * The snapshots this process refused per data dir, as its dataset runtime last recorded them
 * (intel/runtime.ts), read by the status answer (/readyz) without a handle on the runtime.
 */
const refusedByDataDir = new Map<string, RefusedSnapshot[]>();

export function recordRefusedSnapshots(dataDir: string, refused: readonly RefusedSnapshot[]): void {
  refusedByDataDir.set(path.resolve(dataDir), [...refused]);
}

export function refusedSnapshots(dataDir: string): RefusedSnapshot[] {
  return refusedByDataDir.get(path.resolve(dataDir)) ?? [];
}

export interface VerifyResult {
  version: number;
  dir: string;
  /** True: every file matched its size and SHA-256; false: the manifest lists none (sizes only). */
  verified: boolean;
  /** Why the snapshot is broken; null when it loads. */
  problem: string | null;
}

/**
 * `netrep dataset verify`: the full check of one snapshot (sizes, hashes, a complete load with
 * the table checks).
 */
export function verifySnapshot(dir: string): VerifyResult {
  const version = versionOfDir(dir) ?? 0;
  try {
    const s = loadSnapshot(dir);
    return { version, dir, verified: hasDigests(s.manifest), problem: null };
  } catch (err) {
    const problem = err instanceof SnapshotError ? err.reason : (err as Error).message;
    return { version, dir, verified: false, problem };
  }
}

export function datasetsDir(dataDir: string): string {
  return path.join(dataDir, 'datasets');
}

export interface DatasetVersion {
  version: number;
  dir: string;
  createdAt: string;
  sources: number;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but is not ours to signal.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the `.tmp-v<N>-<pid>` directories of builds whose process is gone (a build killed
 * before its rename leaves one, about 50 MB on the full data). Runs at every build and when a
 * server's dataset runtime starts; a live build's directory is left alone. Returns the names
 * removed.
 */
export function sweepStaleBuilds(dataDir: string, alive: (pid: number) => boolean = processAlive): string[] {
  const root = datasetsDir(dataDir);
  if (!existsSync(root)) return [];
  const removed: string[] = [];
  for (const name of readdirSync(root)) {
    const m = /^\.tmp-v\d+-(\d+)$/.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    rmSync(path.join(root, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** The highest N of any `v<N>` directory, whatever its format (0 when none). */
export function highestVersionDir(dataDir: string): number {
  const root = datasetsDir(dataDir);
  if (!existsSync(root)) return 0;
  let top = 0;
  for (const name of readdirSync(root)) {
    const m = /^v(\d+)$/.exec(name);
    if (m) top = Math.max(top, Number(m[1]));
  }
  return top;
}

/**
 * Complete snapshot versions of the current format on disk, oldest first (temp dirs, broken
 * dirs and snapshots of another format are skipped).
 */
export function listDatasetVersions(dataDir: string): DatasetVersion[] {
  const root = datasetsDir(dataDir);
  if (!existsSync(root)) return [];
  const out: DatasetVersion[] = [];
  for (const name of readdirSync(root)) {
    const m = /^v(\d+)$/.exec(name);
    if (!m) continue;
    const dir = path.join(root, name);
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
      if (manifest.format !== SNAPSHOT_FORMAT) continue;
      out.push({
        version: Number(m[1]),
        dir,
        createdAt: manifest.created_at,
        sources: manifest.sources.length,
      });
    } catch {
      // A directory without a readable manifest is not a snapshot.
    }
  }
  return out.sort((a, b) => a.version - b.version);
}

/**
 * The newest snapshot that loads; broken newer ones are passed over and reported to `onRefused`
 * (the runtime logs them and /readyz names them). Null when none loads.
 */
export function loadLatestSnapshot(
  dataDir: string,
  onRefused: (refused: RefusedSnapshot) => void = () => undefined,
): Snapshot | null {
  for (const c of snapshotDirs(dataDir)) {
    if (isOtherFormat(c.dir)) continue;
    try {
      return loadSnapshot(c.dir);
    } catch (err) {
      if (!(err instanceof SnapshotError)) throw err;
      onRefused({ version: c.version, reason: err.reason });
    }
  }
  return null;
}

/** Change history files of every version, oldest first. */
export function loadHistory(dataDir: string): HistoryFile[] {
  const out: HistoryFile[] = [];
  for (const v of listDatasetVersions(dataDir)) {
    const file = path.join(v.dir, 'history.json');
    if (existsSync(file)) out.push(JSON.parse(readFileSync(file, 'utf8')) as HistoryFile);
  }
  return out;
}
