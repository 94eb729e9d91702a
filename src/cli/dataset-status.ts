/**
 * `netrep dataset status` as text: what the newest snapshot holds (source families, rows, age),
 * how the last update went, and per upstream source its last download. `--json` prints the
 * same object /readyz carries under `dataset`.
 */
import type { DatasetStatus } from '../dataset/index.ts';
import { formatTable } from './table.ts';

/** An age in the largest whole unit: `40 s`, `12 min`, `5 h`, `3 d`. */
export function formatAge(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 2 * 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 2 * 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/** The rows aligned in columns, without the final newline. */
const table = (rows: string[][]): string => formatTable(rows).slice(0, -1);

/** The update line: schedule, last attempt and its outcome, failures in a row, next attempt. */
export function formatUpdateLine(u: DatasetStatus['update']): string {
  const parts = [`update: ${u.schedule}`];
  if (u.last_attempt_at === null) parts.push('no update recorded yet');
  else
    parts.push(
      `last attempt ${u.last_attempt_at} ${u.last_result}${u.last_error ? ` (${u.last_error})` : ''}`,
    );
  if (u.consecutive_failures > 0)
    parts.push(`${u.consecutive_failures} failed attempt${u.consecutive_failures === 1 ? '' : 's'} in a row`);
  if (u.last_success_at) parts.push(`last full update ${u.last_success_at}`);
  if (u.next_attempt_at) parts.push(`next attempt ${u.next_attempt_at}`);
  return parts.join('; ');
}

/** A source's last download: not yet, ok when, or failed when, why and how many times in a row. */
export function lastDownloadCell(x: DatasetStatus['sources'][number]): string {
  if (x.ok === null) return 'not downloaded';
  if (x.ok) return `ok ${x.attempted_at}`;
  return `failed ${x.attempted_at}: ${x.error}${x.failures > 1 ? ` (${x.failures} in a row)` : ''}`;
}

/** The snapshot's lines: version and age, summary, verification, and the family table. */
function snapshotLines(s: DatasetStatus): string[] {
  if (s.version === null)
    return ['no dataset snapshot yet; run `netrep dataset build` or `netrep dataset update`'];
  const lines = [
    `dataset v${s.version}, built ${s.built_at} (${formatAge(s.age_seconds ?? 0)} ago)`,
    s.summary,
  ];
  if (s.verified === false)
    lines.push('unverified: built before file hashes (2026-11-27); sizes checked only');
  lines.push('');
  lines.push(
    table([
      ['family', 'sources', 'rows', 'age'],
      ...s.families.map((f) => [f.family, String(f.sources), String(f.rows), formatAge(f.age_seconds)]),
    ]),
  );
  return lines;
}

export function formatDatasetStatus(s: DatasetStatus): string {
  const lines: string[] = [];
  for (const r of s.refused ?? []) lines.push(`dataset v${r.version} refused: ${r.reason}`);
  lines.push(...snapshotLines(s));
  lines.push('');
  lines.push(formatUpdateLine(s.update));
  if (s.sources.length > 0) {
    lines.push('');
    lines.push(
      table([
        ['source', 'family', 'in snapshot', 'last download'],
        ...s.sources.map((x) => [
          x.id,
          x.family,
          x.in_snapshot ? `yes (${x.rows ?? 0} rows)` : 'no',
          lastDownloadCell(x),
        ]),
      ]),
    );
  }
  return `${lines.join('\n')}\n`;
}
