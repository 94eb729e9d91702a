/**
 * `netrep dataset status` as text: what the newest snapshot holds (source families, rows, age),
 * how the last update went, and per upstream source its last download. `--json` prints the
 * same object /readyz carries under `dataset`.
 */
import type { DatasetStatus } from '../dataset/index.ts';

/** An age in the largest whole unit: `40 s`, `12 min`, `5 h`, `3 d`. */
export function formatAge(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 2 * 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 2 * 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

const table = (rows: string[][]): string => {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
};

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

export function formatDatasetStatus(s: DatasetStatus): string {
  const lines: string[] = [];
  for (const r of s.refused ?? []) lines.push(`dataset v${r.version} refused: ${r.reason}`);
  if (s.version === null) {
    lines.push('no dataset snapshot yet; run `netrep dataset build` or `netrep dataset update`');
  } else {
    lines.push(`dataset v${s.version}, built ${s.built_at} (${formatAge(s.age_seconds ?? 0)} ago)`);
    lines.push(s.summary);
    if (s.verified === false)
      lines.push('unverified: built before file hashes (2026-11-27); sizes checked only');
    lines.push('');
    lines.push(
      table([
        ['family', 'sources', 'rows', 'age'],
        ...s.families.map((f) => [f.family, String(f.sources), String(f.rows), formatAge(f.age_seconds)]),
      ]),
    );
  }
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
          x.ok === null
            ? 'not downloaded'
            : x.ok
              ? `ok ${x.attempted_at}`
              : `failed ${x.attempted_at}: ${x.error}${x.failures > 1 ? ` (${x.failures} in a row)` : ''}`,
        ]),
      ]),
    );
  }
  return `${lines.join('\n')}\n`;
}
