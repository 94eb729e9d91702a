/**
 * `buildDataset`: reads the npm data packages (always) and the upstream files under `from`
 * (when given), merges them (merge.ts) and writes an immutable snapshot `datasets/v<N>/`
 * through a temp dir and a rename. The change history against the previous version is
 * written beside it.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../core/clock.ts';
import { asnTable } from './asn-table.ts';
import { writeFeedRows } from './feed-rows.ts';
import { scanFromDir } from './from-dir.ts';
import { diffSnapshots } from './history.ts';
import type { Family } from './importers/types.ts';
import type { Inputs } from './input-rows.ts';
import { readInputs } from './inputs.ts';
import { mergeFamily } from './merge.ts';
import { createInterner, type FamilyMerge, type MergeContext } from './merge-context.ts';
import {
  datasetsDir,
  highestVersionDir,
  listDatasetVersions,
  loadSnapshot,
  type Snapshot,
  SnapshotError,
  sweepStaleBuilds,
} from './snapshot.ts';
import { digestSnapshotFiles } from './snapshot-files.ts';
import { NO_RECORD, SNAPSHOT_FORMAT } from './snapshot-tables.ts';
import type { SourceSpec } from './sources.ts';
import { column, type TypedArray, writeTables } from './table-file.ts';
import type { Manifest, ProgressEvent } from './types.ts';
import { upstreamDir } from './update.ts';

export interface BuildOptions {
  dataDir: string;
  /** A directory laid out like shared/data; every recognized file found there is imported. */
  from?: string;
  clock: Clock;
  onProgress?: (e: ProgressEvent) => void;
  /** Override the ip-location-db packages directory (tests use shifted fixtures). */
  npmDir?: string;
  sources?: readonly SourceSpec[];
}

export interface BuildResult {
  version: number;
  dir: string;
  snapshot: Snapshot;
}

function words(family: Family, values: bigint[]): Uint32Array {
  if (family === 4) return Uint32Array.from(values, (v) => Number(v));
  const out = new Uint32Array(values.length * 4);
  values.forEach((v, i) => {
    out[i * 4] = Number((v >> 96n) & 0xffffffffn);
    out[i * 4 + 1] = Number((v >> 64n) & 0xffffffffn);
    out[i * 4 + 2] = Number((v >> 32n) & 0xffffffffn);
    out[i * 4 + 3] = Number(v & 0xffffffffn);
  });
  return out;
}

/** buckets[k] = first interval whose start is >= k << (bits - 16): narrows each search to one bucket. */
function buckets(family: Family, starts: bigint[]): Uint32Array {
  const shift = family === 4 ? 16n : 112n;
  const out = new Uint32Array(65537);
  let i = 0;
  for (let k = 0; k <= 65536; k++) {
    const bound = BigInt(k) << shift;
    while (i < starts.length && (starts[i] as bigint) < bound) i++;
    out[k] = i;
  }
  return out;
}

function familyTables(f: Family, m: FamilyMerge): Record<string, TypedArray> {
  const p = `v${f}.`;
  const same = (v: number) => v;
  return {
    [`${p}starts`]: words(f, m.starts),
    [`${p}recs`]: column(Uint32Array, `${p}recs`, m.recs, (r) => (r < 0 ? NO_RECORD : r)),
    [`${p}nets`]: column(Int32Array, `${p}nets`, m.nets, same),
    [`${p}netStarts`]: words(f, m.netStarts),
    [`${p}netEnds`]: words(f, m.netEnds),
    [`${p}asnStarts`]: words(f, m.asnStarts),
    [`${p}asnEnds`]: words(f, m.asnEnds),
    [`${p}asnAsns`]: column(Uint32Array, `${p}asnAsns`, m.asnAsns, same),
    [`${p}buckets`]: buckets(f, m.starts),
  };
}

function roaTables(inputs: Inputs, f: Family): Record<string, TypedArray> {
  const rows = inputs.roas
    .filter((r) => r.family === f)
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.prefixLength - b.prefixLength));
  const p = `roa${f}.`;
  return {
    [`${p}starts`]: words(
      f,
      rows.map((r) => r.start),
    ),
    [`${p}lengths`]: column(Uint8Array, `${p}lengths`, rows, (r) => r.prefixLength),
    [`${p}maxLengths`]: column(Uint8Array, `${p}maxLengths`, rows, (r) => r.maxLength),
    [`${p}asns`]: column(Uint32Array, `${p}asns`, rows, (r) => r.asn),
  };
}

/**
 * The previous version for the change history and the feed rows; a broken one (SnapshotError)
 * is left out with a progress line, and the new version has no history against it.
 */
function loadPrevious(dir: string, progress: (phase: string, message: string) => void): Snapshot | null {
  try {
    return loadSnapshot(dir);
  } catch (err) {
    if (!(err instanceof SnapshotError)) throw err;
    progress('history', `${err.message}: no change history against it`);
    return null;
  }
}

/** The RIR that delegated each ASN, by RIR statistics (blocks capped at 65,536 ASNs). */
function rirOfAsns(inputs: Inputs): MergeContext['rirOfAsn'] {
  const rirOfAsn: MergeContext['rirOfAsn'] = new Map();
  for (const r of inputs.rirAsns)
    for (let k = 0; k < r.count && k < 65536; k++)
      rirOfAsn.set(r.firstAsn + k, { rir: r.rir, source: r.source });
  return rirOfAsn;
}

export async function buildDataset(options: BuildOptions): Promise<BuildResult> {
  // A missing, empty or unrecognised --from DIR is an error, never a silent npm-only build.
  if (options.from !== undefined) scanFromDir(options.from, options.sources);
  const progress = (phase: string, message: string) => options.onProgress?.({ phase, message });
  const inputs = readBuildInputs(options, progress);
  const merged = mergeInputs(inputs, progress);
  const asns = asnTable(inputs, merged.ctx, [merged.m4, merged.m6]);

  for (const name of sweepStaleBuilds(options.dataDir)) progress('read', `removed ${name} (a killed build)`);
  const versions = listDatasetVersions(options.dataDir);
  const prev = versions[versions.length - 1];
  // Numbered past every v<N> directory, also those of an older snapshot format that are no
  // longer listed, so a new build never collides with one.
  const version = Math.max(prev?.version ?? 0, highestVersionDir(options.dataDir)) + 1;
  const root = datasetsDir(options.dataDir);
  mkdirSync(root, { recursive: true });
  const tmp = path.join(root, `.tmp-v${version}-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  const dir = path.join(root, `v${version}`);
  try {
    const tables = snapshotTables(inputs, merged);
    progress('write', `writing v${version}`);
    const sections = writeTables(path.join(tmp, 'tables.bin'), tables);
    const createdAt = new Date(options.clock()).toISOString();
    const manifest = manifestOf(version, createdAt, inputs, merged, asns.length, sections);
    writeFileSync(path.join(tmp, 'strings.json'), JSON.stringify(merged.ctx.interner.strings));
    // Descending: the first entry V8 parses has the widest number, so the 'asn' field holds a
    // double from the start. Ascending, the few 32-bit ASNs above 2^30 came last and changed the
    // field's representation, and the first read of each of the ~90,000 entries paid a map
    // migration (about 120 ms of every load).
    writeFileSync(path.join(tmp, 'asns.json'), JSON.stringify([...asns].sort((a, b) => b.asn - a.asn)));
    writeFileSync(path.join(tmp, 'provenance.json'), JSON.stringify(merged.ctx.provenances));
    writeFileSync(path.join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 1));
    const previous = prev ? loadPrevious(prev.dir, progress) : null;
    if (prev && previous) {
      progress('history', `comparing with v${prev.version}`);
      const history = diffSnapshots(previous, loadSnapshot(tmp, { hashes: false }));
      writeFileSync(path.join(tmp, 'history.json'), JSON.stringify(history));
      manifest.counts.changes = history.changes.length;
    }
    writeFeedRows({
      dir: tmp,
      build: options,
      inputs,
      createdAt,
      previousDir: previous ? prev?.dir : undefined,
    });
    // Every file's size and SHA-256, checked at each load and by `netrep dataset verify`.
    manifest.files = digestSnapshotFiles(tmp);
    writeFileSync(path.join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 1));
    renameSync(tmp, dir);
  } catch (err) {
    // Nothing half-written stays behind (a killed build's directory is swept at the next start).
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  progress('done', `dataset v${version} written to ${dir}`);
  return { version, dir, snapshot: loadSnapshot(dir, { hashes: false }) };
}

type Progress = (phase: string, message: string) => void;

/** Every source of the build read, with a progress line per source read and one per summary. */
function readBuildInputs(options: BuildOptions, progress: Progress): Inputs {
  progress('read', 'reading sources');
  const inputs = readInputs({
    from: options.from,
    npmDir: options.npmDir,
    sources: options.sources,
    // The data dir's own downloads (`dataset update`): fast-churning lists age out by fetch time.
    ...(options.from !== undefined &&
    path.resolve(options.from) === path.resolve(upstreamDir(options.dataDir))
      ? { ageOutAt: options.clock() }
      : {}),
    onSource: (id) => options.onProgress?.({ phase: 'read', message: `reading ${id}`, source: id }),
  });
  for (const s of inputs.sources)
    progress('read', `${s.id}: ${s.skipped ?? s.note ?? `${s.rows} rows, ${s.rejected} rejected`}`);
  return inputs;
}

/** Both families merged, sharing one context (interned strings, records, provenance). */
interface Merged {
  ctx: MergeContext;
  m4: FamilyMerge;
  m6: FamilyMerge;
}

function mergeInputs(inputs: Inputs, progress: Progress): Merged {
  const ctx: MergeContext = {
    interner: createInterner(),
    records: [],
    recordIds: new Map(),
    geofeedIds: new Map(),
    geofeeds: [],
    rirOfAsn: rirOfAsns(inputs),
    provenances: [],
    provenanceIds: new Map(),
  };
  progress('merge', 'merging IPv4');
  const m4 = mergeFamily(4, inputs, ctx);
  progress('merge', `IPv4: ${m4.starts.length} intervals; merging IPv6`);
  const m6 = mergeFamily(6, inputs, ctx);
  progress('merge', `IPv6: ${m6.starts.length} intervals, ${ctx.records.length} records`);
  return { ctx, m4, m6 };
}

/** The typed tables of `tables.bin`: both families' intervals, the records' columns, geofeeds, ROAs. */
function snapshotTables(inputs: Inputs, { ctx, m4, m6 }: Merged): Record<string, TypedArray> {
  const r = ctx.records;
  return {
    ...familyTables(4, m4),
    ...familyTables(6, m6),
    'rec.asn': column(Uint32Array, 'rec.asn', r, (x) => x.asn),
    'rec.org': column(Uint32Array, 'rec.org', r, (x) => x.org),
    'rec.country': column(Uint16Array, 'rec.country', r, (x) => x.country),
    'rec.whoisCountry': column(Uint16Array, 'rec.whoisCountry', r, (x) => x.whoisCountry),
    'rec.asnCountry': column(Uint16Array, 'rec.asnCountry', r, (x) => x.asnCountry),
    'rec.rir': column(Uint8Array, 'rec.rir', r, (x) => x.rir),
    'rec.flags': column(Uint16Array, 'rec.flags', r, (x) => x.flags),
    'rec.cloud': column(Uint32Array, 'rec.cloud', r, (x) => x.cloud),
    'rec.ai': column(Uint32Array, 'rec.ai', r, (x) => x.ai),
    'rec.geofeed': column(Int32Array, 'rec.geofeed', r, (x) => x.geofeed),
    'rec.prov': column(Uint32Array, 'rec.prov', r, (x) => x.prov),
    geofeeds: column(Uint32Array, 'geofeeds', ctx.geofeeds, (x) => x),
    ...roaTables(inputs, 4),
    ...roaTables(inputs, 6),
  };
}

/** The manifest as first written (no change count, no file digests yet). */
function manifestOf(
  version: number,
  createdAt: string,
  inputs: Inputs,
  { ctx, m4, m6 }: Merged,
  asnCount: number,
  sections: Manifest['sections'],
): Manifest {
  return {
    format: SNAPSHOT_FORMAT,
    version,
    created_at: createdAt,
    sources: inputs.sources,
    source_versions: Object.fromEntries(inputs.sources.map((s) => [s.id, version])),
    dbip_city: inputs.dbipCity,
    counts: {
      v4_intervals: m4.starts.length,
      v6_intervals: m6.starts.length,
      records: ctx.records.length,
      asns: asnCount,
      roas: inputs.roas.length,
      changes: 0,
    },
    sections,
  };
}
