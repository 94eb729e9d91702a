/**
 * Snapshot directories `<dataDir>/datasets/v<N>/`: manifest.json, tables.bin (typed arrays),
 * strings.json, asns.json, history.json. Immutable once renamed into place.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Provenance } from './merge.ts';
import { TableFile } from './table-file.ts';
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

export function loadSnapshot(dir: string): Snapshot {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  if (manifest.format !== SNAPSHOT_FORMAT)
    throw new Error(
      `snapshot ${dir} has format ${manifest.format}, this netrep reads format ${SNAPSHOT_FORMAT}: run netrep dataset build`,
    );
  const t = new TableFile(path.join(dir, 'tables.bin'), manifest.sections);
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
    strings: JSON.parse(readFileSync(path.join(dir, 'strings.json'), 'utf8')) as string[],
    geofeeds: t.u32('geofeeds'),
    asns: JSON.parse(readFileSync(path.join(dir, 'asns.json'), 'utf8')) as AsnEntry[],
    provenance: JSON.parse(readFileSync(path.join(dir, 'provenance.json'), 'utf8')) as Provenance[],
    roas4: roas(t, 4),
    roas6: roas(t, 6),
  };
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

export function loadLatestSnapshot(dataDir: string): Snapshot | null {
  const versions = listDatasetVersions(dataDir);
  const last = versions[versions.length - 1];
  return last ? loadSnapshot(last.dir) : null;
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
