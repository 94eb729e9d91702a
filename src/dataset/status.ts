/**
 * What a snapshot holds and how the updates went, in one answer for `serve`'s start lines,
 * /readyz, `netrep dataset status` and the dashboard: the source families of the serving
 * snapshot with their age, whether it holds any upstream source at all (a snapshot built only
 * from the bundled npm packages is named as such), and per source the last download.
 *
 * A family is the top directory of a source's path in sources.ts (`tor`, `cloud`, `bots`,
 * `spamhaus`, ...), the layout of shared/data, so a source added there is counted without a
 * change here; the npm packages form the family `bundled`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Static } from '@sinclair/typebox';
import type { DatasetStatusSchema } from './schemas.ts';
import {
  datasetsDir,
  hasDigests,
  listDatasetVersions,
  type RefusedSnapshot,
  refusedSnapshots,
} from './snapshot.ts';
import { UPSTREAM_SOURCES } from './sources.ts';
import type { Manifest } from './types.ts';
import { readUpdateStatus, type UpdateStatusFile } from './update-status.ts';

export type DatasetStatus = Static<typeof DatasetStatusSchema>;

/** The family of the npm data packages read by every build. */
export const BUNDLED_FAMILY = 'bundled';

/** The family of a source id: its path's top directory, `bundled` for an npm package. */
export function sourceFamily(id: string): string {
  const spec = UPSTREAM_SOURCES.find((s) => s.id === id);
  return spec ? (spec.path.split('/')[0] ?? spec.path) : BUNDLED_FAMILY;
}

const seconds = (now: number, iso: string) => Math.max(0, Math.round((now - Date.parse(iso)) / 1000));

function summaryOf(version: number | null, families: readonly { family: string }[]): string {
  if (version === null) return 'no dataset snapshot loaded yet';
  const upstream = families.filter((f) => f.family !== BUNDLED_FAMILY).map((f) => f.family);
  if (upstream.length === 0)
    return `v${version} is built only from the bundled npm packages (ASN, country, geolocation): no upstream source yet, so the flags from upstream lists (Tor, VPN, proxies, cloud, crawlers, DROP, UCEPROTECT) are all false`;
  return `v${version} holds ${upstream.length} upstream source ${upstream.length === 1 ? 'family' : 'families'} (${upstream.join(', ')}) and the bundled npm packages`;
}

export interface DatasetStatusOptions {
  dataDir: string;
  /** The version to describe (the serving one; `dataset status`: the newest on disk); null: none. */
  version: number | null;
  now: number;
  /**
   * Newer snapshots refused as broken: `dataset status` passes its own check; absent, the list
   * this process's dataset runtime recorded for the data dir.
   */
  refused?: readonly RefusedSnapshot[];
  /** NETREP_DATASET_UPDATE as configured (`off`, `daily`, `6h`, ...). */
  schedule: string;
  /** When this process next updates (the updater's own clock ms); absent: the recorded time. */
  nextAttemptAt?: number | null;
}

/**
 * Describes a snapshot and the update status. The manifest of the last version asked for is
 * kept (snapshots are immutable), so /readyz reads one small status file per call.
 */
export function createDatasetStatusReader(): (options: DatasetStatusOptions) => DatasetStatus {
  let cached: { dir: string; manifest: Manifest } | null = null;
  const manifestOf = (dataDir: string, version: number): Manifest | null => {
    const dir = path.join(datasetsDir(dataDir), `v${version}`);
    if (cached?.dir === dir) return cached.manifest;
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
      cached = { dir, manifest };
      return manifest;
    } catch {
      return null;
    }
  };

  return (options) => {
    const { dataDir, now } = options;
    const manifest = options.version === null ? null : manifestOf(dataDir, options.version);
    const version = manifest ? manifest.version : null;
    const familyList = familiesOf(manifest, buildTimesOf(dataDir, manifest), now);
    const inSnapshot = new Map<string, number>();
    for (const s of manifest?.sources ?? []) inSnapshot.set(s.id, s.rows);
    const recorded = readUpdateStatus(dataDir);
    return {
      version,
      built_at: manifest?.created_at ?? null,
      age_seconds: manifest ? seconds(now, manifest.created_at) : null,
      upstream: familyList.some((f) => f.family !== BUNDLED_FAMILY),
      summary: summaryOf(version, familyList),
      verified: manifest ? hasDigests(manifest) : null,
      refused: [...(options.refused ?? refusedSnapshots(dataDir))].sort((a, b) => b.version - a.version),
      families: familyList,
      update: updateOf(options, recorded),
      sources: sourcesOf(inSnapshot, recorded),
    };
  };
}

type Family = DatasetStatus['families'][number];

/**
 * The build time of each version the snapshot's sources come from: a source's data may come
 * from an earlier build (source_versions), and its age is that build's.
 */
function buildTimesOf(dataDir: string, manifest: Manifest | null): Map<number, string> {
  const builtAt = new Map<number, string>();
  if (!manifest) return builtAt;
  builtAt.set(manifest.version, manifest.created_at);
  const needsOthers = Object.values(manifest.source_versions ?? {}).some((v) => v !== manifest.version);
  if (needsOthers) for (const v of listDatasetVersions(dataDir)) builtAt.set(v.version, v.createdAt);
  return builtAt;
}

/** The source families of the snapshot (bundled first, then by name), each dated by its oldest source. */
function familiesOf(manifest: Manifest | null, builtAt: Map<number, string>, now: number): Family[] {
  const families = new Map<string, { sources: number; rows: number; built_at: string }>();
  for (const s of manifest?.sources ?? []) {
    const family = sourceFamily(s.id);
    const from = manifest?.source_versions?.[s.id] ?? manifest?.version ?? 0;
    const at = builtAt.get(from) ?? manifest?.created_at ?? '';
    const f = families.get(family) ?? { sources: 0, rows: 0, built_at: at };
    f.sources++;
    f.rows += s.rows;
    if (Date.parse(at) < Date.parse(f.built_at)) f.built_at = at;
    families.set(family, f);
  }
  return [...families]
    .map(([family, f]) => ({ family, ...f, age_seconds: seconds(now, f.built_at) }))
    .sort((a, b) =>
      a.family === BUNDLED_FAMILY ? -1 : b.family === BUNDLED_FAMILY ? 1 : a.family.localeCompare(b.family),
    );
}

/** The updater's schedule and last attempts; the next attempt is null when updates are off. */
function updateOf(options: DatasetStatusOptions, recorded: UpdateStatusFile): DatasetStatus['update'] {
  return {
    schedule: options.schedule,
    last_attempt_at: recorded.last_attempt?.at ?? null,
    last_result: recorded.last_attempt?.result ?? null,
    last_error: recorded.last_attempt?.error ?? null,
    last_success_at: recorded.last_success_at,
    consecutive_failures: recorded.consecutive_failures,
    next_attempt_at: options.schedule === 'off' ? null : nextAttemptOf(options, recorded),
  };
}

/** The next attempt as this process plans it (options.nextAttemptAt), else as recorded. */
function nextAttemptOf(options: DatasetStatusOptions, recorded: UpdateStatusFile): string | null {
  const at = options.nextAttemptAt;
  if (at === undefined) return recorded.next_attempt_at;
  if (at === null) return null;
  return new Date(Number.isFinite(at) ? at : options.now).toISOString();
}

/** Per upstream source in the snapshot or with a recorded download: rows and the last download. */
function sourcesOf(inSnapshot: Map<string, number>, recorded: UpdateStatusFile): DatasetStatus['sources'] {
  return UPSTREAM_SOURCES.filter((s) => inSnapshot.has(s.id) || recorded.sources[s.id]).map((s) => {
    const d = recorded.sources[s.id];
    return {
      id: s.id,
      family: sourceFamily(s.id),
      in_snapshot: inSnapshot.has(s.id),
      rows: inSnapshot.get(s.id) ?? null,
      attempted_at: d?.attempted_at ?? null,
      ok: d ? d.ok : null,
      error: d?.error ?? null,
      last_ok_at: d?.last_ok_at ?? null,
      failures: d?.failures ?? 0,
    };
  });
}

/** Whether a snapshot's manifest names any upstream source (not only the bundled npm packages). */
export function holdsUpstreamSources(manifest: Pick<Manifest, 'sources'>): boolean {
  return manifest.sources.some((s) => sourceFamily(s.id) !== BUNDLED_FAMILY);
}
