/**
 * Snapshot directories `<dataDir>/datasets/v<N>/`: manifest.json, tables.bin (typed arrays),
 * strings.json, asns.json, history.json. Immutable once renamed into place.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { TableFile } from './table-file.ts';
import type { AsnEntry, Manifest } from './types.ts';

export const NO_RECORD = 0xffffffff;

export interface FamilyTable {
  family: 4 | 6;
  /** Interval count. */
  size: number;
  /** Interval starts: one word each (IPv4) or four big-endian words each (IPv6). */
  starts: Uint32Array;
  /** Record id per interval, NO_RECORD for gaps. */
  recs: Uint32Array;
  /** Network (ASN piece) per interval, -1 when no ASN row covers it. */
  nets: Int32Array;
  netStarts: Uint32Array;
  netEnds: Uint32Array;
  netAsns: Uint32Array;
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
  cloud: Uint16Array;
  ai: Uint16Array;
  geofeed: Int32Array;
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
    netAsns: t.u32(`${p}netAsns`),
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
  if (manifest.format !== 1) throw new Error(`unsupported snapshot format in ${dir}`);
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
    cloud: t.u16('rec.cloud'),
    ai: t.u16('rec.ai'),
    geofeed: t.i32('rec.geofeed'),
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

/** Complete snapshot versions on disk, oldest first (temp dirs and broken dirs are skipped). */
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
