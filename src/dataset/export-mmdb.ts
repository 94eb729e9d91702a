/**
 * `netrep dataset export --format mmdb`: the snapshot as a MaxMind DB in GeoLite2-City's layout
 * (`country.iso_code`, `city.names.en`, `location.latitude` …) with GeoLite2-ASN's two keys in the
 * same record and a `netrep` map of the flags. The values come from the caller: the lookup's
 * answer (/v1/ip) for the snapshot's fields and the API's geolocation of a DB-IP city record for
 * the city fields, so the file and the API cannot disagree.
 *
 * The tree is the merge of two partitions of the address space, walked together depth first:
 * the snapshot's intervals (mmdb-segments.ts, bogons cut out) and the DB-IP city files' own
 * trees (mmdb-tree-reader.ts). A prefix is a network of the file when both are constant over it.
 */
import { collectGarbage } from '../core/collect-garbage.ts';
import { type DbipCityRow, dbipRecordToRow } from './importers/index.ts';
import {
  createParts,
  createRecords,
  type MmdbAnswer,
  type MmdbGeolocation,
  type MmdbRecords,
  writeKeys,
} from './mmdb-records.ts';
import { mergeRanges, rangeOfCidr, type Segments, segmentsOf } from './mmdb-segments.ts';
import { type MmdbTreeReader, openMmdbTree } from './mmdb-tree-reader.ts';
import { type Classify, createMmdbWriter, EMPTY, type MmdbWriter, SPLIT } from './mmdb-writer.ts';
import type { Snapshot } from './snapshot.ts';

/** An answer by address (IPv4 as a 32-bit value). */
export type AnswerAt = (family: 4 | 6, address: bigint) => MmdbAnswer | null;

export interface MmdbExportSources {
  snapshot: Snapshot;
  /**
   * A new lookup over the snapshot: the answer for an address (IPv4 as a 32-bit value), null
   * when no record covers it. One is asked for per family and dropped after it: a lookup keeps
   * what it worked out for each record it answered from (130 MB for all of them on the full data).
   */
  lookup(): AnswerAt;
  /** The geolocation the API gives for a DB-IP city record (intel's geolocationOf). */
  geolocationOf(row: DbipCityRow): MmdbGeolocation;
  /** A country's English name (intel's countryName). */
  countryName(cc: string): string | null;
}

export interface MmdbExportResult {
  /** Networks written (tree records pointing at data). */
  networks: number;
  nodes: number;
  bytes: number;
}

/**
 * Where bogon blocks may lie: the IANA IPv4 and IPv6 special-purpose registries, multicast, and
 * the IPv6 space outside 2000::/3. The lookup is asked at both ends of each, and a bogon answer
 * names its block (its `prefix`); those blocks are cut out of the snapshot's intervals, as the
 * lookup answers them before it searches the intervals.
 */
const SPECIAL_PURPOSE: readonly string[] = (
  '0.0.0.0/8 10.0.0.0/8 100.64.0.0/10 127.0.0.0/8 169.254.0.0/16 172.16.0.0/12 192.0.0.0/24 ' +
  '192.0.2.0/24 192.31.196.0/24 192.52.193.0/24 192.88.99.0/24 192.168.0.0/16 192.175.48.0/24 ' +
  '198.18.0.0/15 198.51.100.0/24 203.0.113.0/24 224.0.0.0/4 240.0.0.0/4 ' +
  '::/3 64:ff9b::/96 64:ff9b:1::/48 100::/64 2001::/23 2001:db8::/32 2002::/16 2620:4f:8000::/48 ' +
  '3fff::/20 4000::/3 5f00::/16 6000::/3 8000::/3 a000::/3 c000::/3 e000::/4 f000::/5 f800::/6 ' +
  'fc00::/7 fe00::/9 fe80::/10 fec0::/10 ff00::/8'
).split(' ');

/** The bogon blocks the lookup answers in a family, sorted and merged. */
function bogonBlocks(family: 4 | 6, answerAt: AnswerAt): [bigint, bigint][] {
  const found: [bigint, bigint][] = [];
  for (const text of SPECIAL_PURPOSE) {
    const probe = rangeOfCidr(text);
    if (!probe || probe[0] !== family) continue;
    for (const at of probe[1]) {
      const a = answerAt(family, at);
      const block = a?.bogon ? rangeOfCidr(a.prefix) : null;
      if (block && block[0] === family) found.push(block[1]);
    }
  }
  return mergeRanges(found);
}

/** One family's walk: its segments, its DB-IP tree, and where the walk is in both. */
interface FamilyWalk {
  seg: Segments;
  /** Where the family's address starts in the walk's four words (IPv4: the last), and at which depth. */
  w: number;
  base: number;
  /** The segment holding the last prefix asked about. */
  k: number;
  dbip: MmdbTreeReader | null;
  /** DB-IP record → city id (records.city), for this file. */
  cities: Map<number, number>;
}

/** Is the prefix of `depth` bits at `words[w…]` inside segment k (its last address before k+1)? */
function inSegment(s: Segments, k: number, words: Uint32Array, w: number, depth: number): boolean {
  if (k + 1 >= s.size) return true;
  const n = s.family === 4 ? 1 : 4;
  for (let j = 0; j < n; j++) {
    const lo = words[w + j] as number;
    const free = Math.min(32, Math.max(0, 32 * (j + 1) - depth));
    const hi = free === 0 ? lo : free === 32 ? 0xffffffff : (lo | (0xffffffff >>> (32 - free))) >>> 0;
    const next = s.starts[(k + 1) * n + j] as number;
    if (next !== hi) return next > hi;
  }
  return false;
}

/** Does segment k+1 start at or before the address at `words[w…]`? */
function nextStartsBy(s: Segments, k: number, words: Uint32Array, w: number): boolean {
  const n = s.family === 4 ? 1 : 4;
  for (let j = 0; j < n; j++) {
    const a = words[w + j] as number;
    const next = s.starts[(k + 1) * n + j] as number;
    if (next !== a) return next < a;
  }
  return true;
}

/** What the walk needs of the snapshot: its segments, cut where the lookup's answers differ. */
interface Prepared {
  segments: Record<4 | 6, Segments>;
  parts: ReturnType<typeof createParts>['slots'];
  dbipFiles: Record<4 | 6, string | null>;
  geolocationOf: MmdbExportSources['geolocationOf'];
  metadata: { description: string; buildEpoch: number };
}

/**
 * Reads the snapshot through the lookup into segments and parts. Nothing of the snapshot or the
 * lookup is kept past this (the lookup's per-record caches and the snapshot's tables are most of
 * the process's memory), so the walk runs without them.
 */
function prepare(writer: MmdbWriter, sources: MmdbExportSources): Prepared {
  const { snapshot } = sources;
  const parts = createParts(writer, sources.countryName);
  const whois = snapshot.records.whoisCountry;
  // An answer is its record's (less its prefix), so the lookup is asked once a record.
  const partOfRec = new Int32Array(snapshot.records.count).fill(-2);
  const segments = {} as Record<4 | 6, Segments>;
  for (const t of [snapshot.v4, snapshot.v6]) {
    let answerAt: AnswerAt | null = sources.lookup();
    const bogons = bogonBlocks(t.family, answerAt);
    segments[t.family] = segmentsOf(t, bogons, (rec, first) => {
      if (partOfRec[rec] === -2) {
        const w = whois[rec] as number;
        const registered = w ? String.fromCharCode(w >> 8, w & 255) : null;
        partOfRec[rec] = parts.partOf((answerAt as AnswerAt)(t.family, first), registered);
      }
      return partOfRec[rec] as number;
    });
    answerAt = null;
    collectGarbage();
  }
  return {
    segments,
    parts: parts.slots,
    dbipFiles: { 4: snapshot.manifest.dbip_city.v4, 6: snapshot.manifest.dbip_city.v6 },
    geolocationOf: sources.geolocationOf,
    metadata: {
      description: `netrep dataset v${snapshot.version} built ${snapshot.createdAt}`,
      buildEpoch: Math.floor(Date.parse(snapshot.createdAt) / 1000),
    },
  };
}

/**
 * Writes `file`. `open` is called once and what it returns is dropped once the snapshot is read,
 * so the caller should hold no other reference to the snapshot or lookup while this runs.
 */
export function exportMmdb(
  open: () => MmdbExportSources,
  file: string,
  onProgress?: (share: number) => void,
): MmdbExportResult {
  const writer = createMmdbWriter({ file, databaseType: 'GeoLite2-City' });
  const opened: MmdbTreeReader[] = [];
  try {
    const keys = writeKeys(writer);
    const prepared = prepare(writer, open());
    // The snapshot and the lookup are garbage now: return them before the walk grows its tables.
    collectGarbage();
    const walks = {} as Record<4 | 6, FamilyWalk>;
    for (const f of [4, 6] as const) {
      const dbipFile = prepared.dbipFiles[f];
      const dbip = dbipFile ? openMmdbTree(dbipFile) : null;
      if (dbip) opened.push(dbip);
      const v4 = f === 4;
      walks[f] = {
        seg: prepared.segments[f],
        w: v4 ? 3 : 0,
        base: v4 ? 96 : 0,
        k: 0,
        dbip,
        cities: new Map(),
      };
    }
    const records = createRecords(writer, keys, prepared.parts);
    const classify = classifier(walks, records, prepared.geolocationOf, onProgress);
    return writer.finish(classify, prepared.metadata);
  } catch (err) {
    writer.abort();
    throw err;
  } finally {
    for (const d of opened) d.close();
  }
}

/** The `Classify` of the merged partitions (see the file comment). */
function classifier(
  walks: Record<4 | 6, FamilyWalk>,
  records: MmdbRecords,
  geolocationOf: MmdbExportSources['geolocationOf'],
  onProgress?: (share: number) => void,
): Classify {
  // The DB-IP record value at each depth of the path walked: a node, a data record, or -1.
  const dbipAt = new Float64Array(129);
  const total = walks[4].seg.size + walks[6].seg.size;
  let calls = 0;
  const cityOf = (walk: FamilyWalk, record: number): number => {
    let city = walk.cities.get(record);
    if (city === undefined) {
      const row = dbipRecordToRow((walk.dbip as MmdbTreeReader).valueOf(record), 0);
      city = row ? records.city(geolocationOf(row)) : -1;
      walk.cities.set(record, city);
    }
    return city;
  };
  return (words, depth) => {
    // IPv4 addresses sit under ::/96 (the IPv4 walk starts at depth 96).
    const walk = depth >= 96 && words[0] === 0 && words[1] === 0 && words[2] === 0 ? walks[4] : walks[6];
    const d = depth - walk.base;
    const at = walk.dbip ? dbipRecordAt(walk.dbip, dbipAt, words, depth, d) : -1;
    dbipAt[depth] = at;
    const seg = walk.seg;
    while (walk.k + 1 < seg.size && nextStartsBy(seg, walk.k, words, walk.w)) walk.k++;
    if ((++calls & 0xfffff) === 0) onProgress?.((walks[4].k + walks[6].k) / total);
    return recordAt(walk, words, d, at, records, cityOf);
  };
}

/**
 * The prefix's record: SPLIT where the segment or the DB-IP tree still changes inside it, EMPTY
 * where the snapshot has nothing, else the pair of the segment's part and the DB-IP city.
 */
function recordAt(
  walk: FamilyWalk,
  words: Uint32Array,
  d: number,
  at: number,
  records: MmdbRecords,
  cityOf: (walk: FamilyWalk, record: number) => number,
): number {
  if (!inSegment(walk.seg, walk.k, words, walk.w, d)) return SPLIT;
  const part = walk.seg.values[walk.k] as number;
  if (part < 0) return EMPTY;
  if (walk.dbip && at >= 0 && at < walk.dbip.nodeCount) return SPLIT;
  return records.pair(part, at < 0 ? -1 : cityOf(walk, at));
}

/**
 * The DB-IP tree's record at the prefix of `depth` bits (`d` within its family's tree), -1 for
 * none: from its parent's record (`dbipAt[depth - 1]`) and the prefix's last bit. Below a data
 * record or an empty one the record stays what it was.
 */
function dbipRecordAt(
  tree: MmdbTreeReader,
  dbipAt: Float64Array,
  words: Uint32Array,
  depth: number,
  d: number,
): number {
  const up = d === 0 ? 0 : (dbipAt[depth - 1] as number);
  const parentIsNode = d === 0 || (up >= 0 && up < tree.nodeCount);
  if (!parentIsNode) return up;
  const bit = d === 0 ? 0 : ((words[(depth - 1) >>> 5] as number) >>> (31 - ((depth - 1) & 31))) & 1;
  const at = d === 0 ? 0 : tree.record(up, bit === 1);
  return at === tree.nodeCount ? -1 : at;
}
