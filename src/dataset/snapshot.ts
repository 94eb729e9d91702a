/**
 * Snapshot directories `<dataDir>/datasets/v<N>/`: manifest.json, tables.bin (typed arrays),
 * strings.json, asns.json, history.json. Immutable once renamed into place.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Provenance } from './merge-context.ts';
import { TableFile, tablesByteLength } from './table-file.ts';
import type { AsnEntry, Manifest } from './types.ts';

export const NO_RECORD = 0xffffffff;

/**
 * 2: cloud and crawler label ids are 32-bit (format 1 wrote them as 16-bit numbers into a
 * string table of over 82,000 entries, so most labels named another organisation), the prefix
 * comes from the narrowest network row, and records carry provenance. Older snapshots are not
 * listed or served; the next build gets a number past them.
 */
export const SNAPSHOT_FORMAT = 2;

export interface FamilyTable {
  family: 4 | 6;
  /** Interval count. */
  size: number;
  /** Interval starts: one word each (IPv4) or four big-endian words each (IPv6). */
  starts: Uint32Array;
  /** Record id per interval, NO_RECORD for gaps. */
  recs: Uint32Array;
  /**
   * Network per interval, -1 when none covers it: the narrowest network row (ASN row, cloud or
   * crawler range, geofeed entry) holding it, which the answer's prefix is cut from.
   */
  nets: Int32Array;
  netStarts: Uint32Array;
  netEnds: Uint32Array;
  /** The ASN rows after the narrowest-wins merge, with their ASN: the ASN prefix lists. */
  asnStarts: Uint32Array;
  asnEnds: Uint32Array;
  asnAsns: Uint32Array;
  /** IPv4: 65537 bucket bounds by top 16 bits (first interval with start >= k<<16). */
  buckets: Uint32Array;
}

export interface RecordTable {
  count: number;
  asn: Uint32Array;
  org: Uint32Array;
  country: Uint16Array;
  whoisCountry: Uint16Array;
  asnCountry: Uint16Array;
  rir: Uint8Array;
  flags: Uint16Array;
  cloud: Uint32Array;
  ai: Uint32Array;
  geofeed: Int32Array;
  /** Index into Snapshot.provenance. */
  prov: Uint32Array;
}

export interface RoaTable {
  count: number;
  starts: Uint32Array;
  lengths: Uint8Array;
  maxLengths: Uint8Array;
  asns: Uint32Array;
}

export interface HistoryFile {
  from_version: number;
  to_version: number;
  changed_at: string;
  /** [family, start, end, prevAsn, curAsn, prevOrg, curOrg, prevCountry, curCountry]; addresses as decimal strings. */
  changes: [
    4 | 6,
    string,
    string,
    number | null,
    number | null,
    string | null,
    string | null,
    string | null,
    string | null,
  ][];
}

export interface Snapshot {
  dir: string;
  version: number;
  createdAt: string;
  manifest: Manifest;
  v4: FamilyTable;
  v6: FamilyTable;
  records: RecordTable;
  strings: string[];
  /** 4 string ids per geofeed entry: country, region, city, postal code. */
  geofeeds: Uint32Array;
  asns: AsnEntry[];
  /** Which source gave each field of a record (records.prov points here). */
  provenance: Provenance[];
  roas4: RoaTable;
  roas6: RoaTable;
}

function family(t: TableFile, f: 4 | 6, size: number): FamilyTable {
  const p = `v${f}.`;
  return {
    family: f,
    size,
    starts: t.u32(`${p}starts`),
    recs: t.u32(`${p}recs`),
    nets: t.i32(`${p}nets`),
    netStarts: t.u32(`${p}netStarts`),
    netEnds: t.u32(`${p}netEnds`),
    asnStarts: t.u32(`${p}asnStarts`),
    asnEnds: t.u32(`${p}asnEnds`),
    asnAsns: t.u32(`${p}asnAsns`),
    buckets: t.u32(`${p}buckets`),
  };
}

function roas(t: TableFile, f: 4 | 6): RoaTable {
  const p = `roa${f}.`;
  const asns = t.u32(`${p}asns`);
  return {
    count: asns.length,
    starts: t.u32(`${p}starts`),
    lengths: t.u8(`${p}lengths`),
    maxLengths: t.u8(`${p}maxLengths`),
    asns,
  };
}

/** Size and SHA-256 of one snapshot file, as the build wrote it (manifest `files`). */
export interface FileDigest {
  size: number;
  sha256: string;
}

/** A snapshot that cannot be served: which one and why (named in the log, /readyz, the CLI). */
export class SnapshotError extends Error {
  constructor(
    readonly dir: string,
    readonly version: number | null,
    readonly reason: string,
  ) {
    super(`dataset ${version === null ? dir : `v${version}`} is broken: ${reason}`);
    this.name = 'SnapshotError';
  }
}

/** The files every snapshot holds (manifests written before 2026-11-27 list no `files`). */
const REQUIRED_FILES = ['tables.bin', 'strings.json', 'asns.json', 'provenance.json'] as const;

/** Bytes hashed between two yields to the event loop by the async load (about 1 ms of SHA-256). */
const HASH_CHUNK = 1024 * 1024;

const versionOfDir = (dir: string): number | null => {
  const m = /^v(\d+)$/.exec(path.basename(dir));
  return m ? Number(m[1]) : null;
};

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

function hashMismatch(rel: string, digest: string, manifest: Manifest): string | null {
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

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

async function sha256Chunked(data: Buffer): Promise<string> {
  const h = createHash('sha256');
  for (let at = 0; at < data.byteLength; at += HASH_CHUNK) {
    h.update(data.subarray(at, at + HASH_CHUNK));
    await yieldToLoop();
  }
  return h.digest('hex');
}

/** Whether every index a table holds stays inside the table it points into (no garbage run). */
function checkTables(dir: string, s: Snapshot): void {
  const broken = (reason: string) => new SnapshotError(dir, s.version, reason);
  const c = s.manifest.counts;
  const r = s.records;
  for (const [name, col] of Object.entries(r)) {
    if (name !== 'count' && (col as { length: number }).length !== c.records)
      throw broken(
        `rec.${name} holds ${(col as { length: number }).length} rows, the manifest counts ${c.records}`,
      );
  }
  for (const t of [s.v4, s.v6]) {
    const words = t.family === 4 ? 1 : 4;
    const p = `v${t.family}`;
    if (t.starts.length !== t.size * words || t.recs.length !== t.size || t.nets.length !== t.size)
      throw broken(`${p} tables do not hold the ${t.size} intervals the manifest counts`);
    const nets = t.netStarts.length / words;
    for (let i = 0; i < t.size; i++) {
      const rec = t.recs[i] as number;
      if (rec !== NO_RECORD && rec >= r.count)
        throw broken(`${p}.recs[${i}] = ${rec} is past the ${r.count} records`);
      const net = t.nets[i] as number;
      if (net < -1 || net >= nets) throw broken(`${p}.nets[${i}] = ${net} is past the ${nets} networks`);
    }
    if (t.family === 4) {
      let prev = 0;
      for (let k = 0; k < t.buckets.length; k++) {
        const b = t.buckets[k] as number;
        if (b < prev || b > t.size) throw broken(`v4.buckets[${k}] = ${b} is out of order or past the table`);
        prev = b;
      }
    }
  }
  const geofeeds = s.geofeeds.length / 4;
  for (let i = 0; i < r.count; i++) {
    if ((r.prov[i] as number) >= s.provenance.length)
      throw broken(`rec.prov[${i}] is past the ${s.provenance.length} provenance entries`);
    const g = r.geofeed[i] as number;
    if (g < -1 || g >= geofeeds)
      throw broken(`rec.geofeed[${i}] = ${g} is past the ${geofeeds} geofeed entries`);
  }
}

function parseJson<T>(dir: string, version: number, rel: string, data: Buffer, isArray = true): T {
  let value: unknown;
  try {
    value = JSON.parse(data.toString('utf8'));
  } catch (err) {
    throw new SnapshotError(dir, version, `${rel} does not parse (${(err as Error).message})`);
  }
  if (isArray && !Array.isArray(value)) throw new SnapshotError(dir, version, `${rel} is not a list`);
  return value as T;
}

/** Bytes of a JSON list parsed in one piece by the async load (about 4 ms of JSON.parse). */
const PARSE_BATCH = 256 * 1024;

const isJsonSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * JSON.parse of a top-level list in slices of about 256 KB cut at the list's own commas, with a
 * yield to the event loop between them. The cut is found on the bytes (every structural
 * character of JSON is ASCII, and no UTF-8 continuation byte is), and each slice parses as
 * `[slice]`, so the whole is accepted exactly when JSON.parse accepts it.
 */
async function parseJsonListAsync<T>(dir: string, version: number, rel: string, data: Buffer): Promise<T[]> {
  const fail = (why: string) => new SnapshotError(dir, version, `${rel} does not parse (${why})`);
  let i = 0;
  while (isJsonSpace(data[i])) i++;
  if (data[i] !== 0x5b) throw new SnapshotError(dir, version, `${rel} is not a list`);
  i++;
  const out: T[] = [];
  let start = i;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let closed = false;
  let cut = false;
  const flush = (end: number) => {
    const slice = data.toString('utf8', start, end);
    if (slice.trim() === '') {
      if (cut) throw fail('a comma before the closing bracket');
      return;
    }
    let part: T[];
    try {
      part = JSON.parse(`[${slice}]`) as T[];
    } catch (err) {
      throw fail((err as Error).message);
    }
    for (const x of part) out.push(x);
  };
  for (; i < data.length; i++) {
    const c = data[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      if (depth === 0) {
        if (c !== 0x5d) throw fail(`unexpected '}' at byte ${i}`);
        flush(i);
        closed = true;
        i++;
        break;
      }
      depth--;
    } else if (c === 0x2c && depth === 0 && i - start >= PARSE_BATCH) {
      flush(i);
      start = i + 1;
      cut = true;
      await yieldToLoop();
    }
  }
  if (!closed) throw fail('the list does not end');
  for (; i < data.length; i++) if (!isJsonSpace(data[i])) throw fail(`data after the list at byte ${i}`);
  return out;
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
      v4: family(t, 4, manifest.counts.v4_intervals),
      v6: family(t, 6, manifest.counts.v6_intervals),
      records,
      strings: parsed?.strings ?? parseJson<string[]>(dir, v, 'strings.json', buf('strings.json')),
      geofeeds: t.u32('geofeeds'),
      asns: parsed?.asns ?? parseJson<AsnEntry[]>(dir, v, 'asns.json', buf('asns.json')),
      provenance:
        parsed?.provenance ?? parseJson<Provenance[]>(dir, v, 'provenance.json', buf('provenance.json')),
      roas4: roas(t, 4),
      roas6: roas(t, 6),
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
