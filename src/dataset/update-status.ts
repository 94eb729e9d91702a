/**
 * What the last `dataset update` attempts did, kept in `<dataDir>/datasets/update-status.json`
 * so every process on the data dir can say it (`netrep dataset status`, /readyz on an API-only
 * instance): the last attempt's outcome, the failures in a row (the retry back-off), when the
 * next attempt is due, and per source its last download. Written by whoever ran the update
 * (the scheduled updater under the update lock, or `netrep dataset update`), through a temp file
 * and a rename, so a reader never sees half a file.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { datasetsDir } from './snapshot.ts';
import type { DownloadResult } from './update.ts';

export type UpdateResult = 'ok' | 'partial' | 'failed';

export interface SourceDownloadStatus {
  /** When this source was last downloaded or tried (ISO 8601). */
  attempted_at: string;
  ok: boolean;
  /** Why the last try failed (null when it worked). */
  error: string | null;
  /** The last download that worked (ISO 8601), null before one. */
  last_ok_at: string | null;
  /** Failed tries since the last one that worked. */
  failures: number;
}

export interface UpdateStatusFile {
  last_attempt: {
    at: string;
    /** ok: built from a full set of downloads; partial: built although some failed; failed: nothing built. */
    result: UpdateResult;
    /** Where a failed attempt stopped (sources, download, build, load), null otherwise. */
    stage: string | null;
    error: string | null;
    /** The snapshot the attempt built, null when none. */
    version: number | null;
  } | null;
  last_success_at: string | null;
  /** Attempts in a row that failed or were partial; 0 after a full update. */
  consecutive_failures: number;
  /** When the builder means to try next (ISO 8601), null when unknown or not scheduled. */
  next_attempt_at: string | null;
  sources: Record<string, SourceDownloadStatus>;
}

export const EMPTY_UPDATE_STATUS: UpdateStatusFile = {
  last_attempt: null,
  last_success_at: null,
  consecutive_failures: 0,
  next_attempt_at: null,
  sources: {},
};

export function updateStatusFile(dataDir: string): string {
  return path.join(datasetsDir(dataDir), 'update-status.json');
}

/** The recorded status; the empty one when no update was ever recorded or the file is unreadable. */
export function readUpdateStatus(dataDir: string): UpdateStatusFile {
  try {
    const doc = JSON.parse(readFileSync(updateStatusFile(dataDir), 'utf8')) as Partial<UpdateStatusFile>;
    return { ...EMPTY_UPDATE_STATUS, ...doc, sources: { ...(doc.sources ?? {}) } };
  } catch {
    return { ...EMPTY_UPDATE_STATUS, sources: {} };
  }
}

export function writeUpdateStatus(dataDir: string, status: UpdateStatusFile): void {
  const file = updateStatusFile(dataDir);
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(status, null, 2)}\n`);
  renameSync(tmp, file);
}

/** A source's status after a download at `at`: its error and failure count, or its last success. */
function downloadStatus(
  d: DownloadResult,
  at: string,
  before: SourceDownloadStatus | undefined,
): SourceDownloadStatus {
  return {
    attempted_at: at,
    ok: d.ok,
    error: d.ok ? null : (d.error ?? 'failed'),
    last_ok_at: d.ok ? at : (before?.last_ok_at ?? null),
    failures: d.ok ? 0 : (before?.failures ?? 0) + 1,
  };
}

/** The status after an attempt: its downloads per source, its outcome and the failure count. */
export function recordUpdateAttempt(
  previous: UpdateStatusFile,
  attempt: {
    at: number;
    result: UpdateResult;
    stage?: string;
    error?: string;
    version?: number;
    downloads: readonly DownloadResult[];
    nextAttemptAt?: number | null;
  },
): UpdateStatusFile {
  const at = new Date(attempt.at).toISOString();
  const sources = { ...previous.sources };
  for (const d of attempt.downloads) sources[d.id] = downloadStatus(d, at, sources[d.id]);
  return {
    last_attempt: {
      at,
      result: attempt.result,
      stage: attempt.stage ?? null,
      error: attempt.error ?? null,
      version: attempt.version ?? null,
    },
    last_success_at: attempt.result === 'ok' ? at : previous.last_success_at,
    consecutive_failures: attempt.result === 'ok' ? 0 : previous.consecutive_failures + 1,
    next_attempt_at:
      attempt.nextAttemptAt === undefined || attempt.nextAttemptAt === null
        ? null
        : new Date(attempt.nextAttemptAt).toISOString(),
    sources,
  };
}
