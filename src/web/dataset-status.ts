/**
 * The dashboard's dataset section (issue #30): what the serving snapshot holds (its source
 * families and their age; a snapshot built only from the bundled npm packages is named as such)
 * and how the last dataset update went, with each failed source and its error.
 */
import type { DatasetStatus } from '../dataset/index.ts';
import { esc } from './html.ts';

function age(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

const when = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '—');

export function datasetSection(s: DatasetStatus): string {
  const warn = s.version !== null && !s.upstream;
  const families =
    s.families.length === 0
      ? ''
      : `<table class="stack"><thead><tr><th scope="col">Source family</th><th scope="col">Files</th><th scope="col">Rows</th><th scope="col">Age</th></tr></thead><tbody>${s.families
          .map(
            (f) =>
              `<tr><td data-label="Source family">${esc(f.family)}</td><td data-label="Files">${f.sources}</td><td data-label="Rows">${f.rows}</td><td data-label="Age">${age(f.age_seconds)}</td></tr>`,
          )
          .join('')}</tbody></table>`;
  const u = s.update;
  const update =
    u.last_attempt_at === null
      ? `<p class="muted">Dataset update: ${esc(u.schedule)}; no update recorded yet${u.next_attempt_at ? `, the next is due ${esc(when(u.next_attempt_at))}` : ''}.</p>`
      : `<p>Last dataset update ${esc(when(u.last_attempt_at))}: <strong>${esc(u.last_result ?? '')}</strong>${u.last_error ? ` (${esc(u.last_error)})` : ''}${u.consecutive_failures > 0 ? `; ${u.consecutive_failures} failed in a row` : ''}${u.next_attempt_at ? `; next attempt ${esc(when(u.next_attempt_at))}` : ''} (schedule: ${esc(u.schedule)}).</p>`;
  const failing = s.sources.filter((x) => x.ok === false);
  const failed =
    failing.length === 0
      ? ''
      : `<table class="stack" id="dataset-failed-sources"><thead><tr><th scope="col">Source</th><th scope="col">Family</th><th scope="col">Last try</th><th scope="col">Error</th><th scope="col">Last worked</th></tr></thead><tbody>${failing
          .map(
            (x) =>
              `<tr><td data-label="Source">${esc(x.id)}</td><td data-label="Family">${esc(x.family)}</td><td data-label="Last try">${esc(when(x.attempted_at))}</td><td data-label="Error">${esc(x.error ?? '')}${x.failures > 1 ? ` (${x.failures} in a row)` : ''}</td><td data-label="Last worked">${esc(when(x.last_ok_at))}</td></tr>`,
          )
          .join('')}</tbody></table>`;
  return `<section id="dataset"><h2>Dataset</h2>
<p${warn ? ' class="error"' : ''}>${esc(s.summary)}${s.built_at ? ` (built ${esc(when(s.built_at))})` : ''}.</p>
${families}${update}${failed}</section>`;
}
