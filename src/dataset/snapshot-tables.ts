/**
 * A loaded snapshot's shape: the typed tables of `tables.bin` (intervals per family, record
 * columns, ROAs) beside the parsed JSON files, and the check that every index a table holds
 * stays inside the table it points into.
 */
import type { Provenance } from './merge-context.ts';
import { SnapshotError } from './snapshot-error.ts';
import type { TableFile } from './table-file.ts';
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

/** The interval tables of family `f` (`size` intervals). */
export function familyTable(t: TableFile, f: 4 | 6, size: number): FamilyTable {
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

/** The ROA tables of family `f`. */
export function roaTable(t: TableFile, f: 4 | 6): RoaTable {
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

/** Whether every index a table holds stays inside the table it points into (no garbage run). */
export function checkTables(dir: string, s: Snapshot): void {
  const broken = (reason: string) => new SnapshotError(dir, s.version, reason);
  checkRecordColumns(s, broken);
  for (const t of [s.v4, s.v6]) checkIntervals(t, s.records.count, broken);
  checkRecordRefs(s, broken);
}

type Broken = (reason: string) => SnapshotError;

/** Every record column holds the record count of the manifest. */
function checkRecordColumns(s: Snapshot, broken: Broken): void {
  const c = s.manifest.counts;
  for (const [name, col] of Object.entries(s.records)) {
    if (name !== 'count' && (col as { length: number }).length !== c.records)
      throw broken(
        `rec.${name} holds ${(col as { length: number }).length} rows, the manifest counts ${c.records}`,
      );
  }
}

/** A family's interval tables: their lengths, each interval's record and network, the IPv4 buckets. */
function checkIntervals(t: FamilyTable, records: number, broken: Broken): void {
  const words = t.family === 4 ? 1 : 4;
  const p = `v${t.family}`;
  if (t.starts.length !== t.size * words || t.recs.length !== t.size || t.nets.length !== t.size)
    throw broken(`${p} tables do not hold the ${t.size} intervals the manifest counts`);
  const nets = t.netStarts.length / words;
  for (let i = 0; i < t.size; i++) {
    const rec = t.recs[i] as number;
    if (rec !== NO_RECORD && rec >= records)
      throw broken(`${p}.recs[${i}] = ${rec} is past the ${records} records`);
    const net = t.nets[i] as number;
    if (net < -1 || net >= nets) throw broken(`${p}.nets[${i}] = ${net} is past the ${nets} networks`);
  }
  if (t.family === 4) checkBuckets(t, broken);
}

function checkBuckets(t: FamilyTable, broken: Broken): void {
  let prev = 0;
  for (let k = 0; k < t.buckets.length; k++) {
    const b = t.buckets[k] as number;
    if (b < prev || b > t.size) throw broken(`v4.buckets[${k}] = ${b} is out of order or past the table`);
    prev = b;
  }
}

/** Each record's provenance and geofeed entry exist. */
function checkRecordRefs(s: Snapshot, broken: Broken): void {
  const r = s.records;
  const geofeeds = s.geofeeds.length / 4;
  for (let i = 0; i < r.count; i++) {
    if ((r.prov[i] as number) >= s.provenance.length)
      throw broken(`rec.prov[${i}] is past the ${s.provenance.length} provenance entries`);
    const g = r.geofeed[i] as number;
    if (g < -1 || g >= geofeeds)
      throw broken(`rec.geofeed[${i}] = ${g} is past the ${geofeeds} geofeed entries`);
  }
}
