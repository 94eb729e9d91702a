/** The dashboard's audit jobs page: the signed-in user's own jobs with their status and gate. */
import type { AuditJob } from '../audit/index.ts';
import { esc, page } from './html.ts';
import type { Viewer } from './pages.ts';

function gateOf(job: AuditJob): string {
  const fi = job.final_interpretation as { acceptance?: { gate?: string } } | null;
  return fi?.acceptance?.gate ?? '';
}

export function auditPage(options: { viewer: Viewer; jobs: AuditJob[] }): string {
  const rows = options.jobs
    .map((job) => {
      const p = job.progress as { done?: number; planned?: number };
      const m = job.sampling_manifest as { sample_size?: number; population?: number };
      const gate = gateOf(job);
      return `<tr><td>${job.id}</td><td>${esc(job.status)}${job.cancel_requested && job.status === 'running' ? ' (cancel requested)' : ''}</td>
<td class="gate-${esc(gate || 'none')}">${esc(gate || '—')}</td><td>v${job.dataset_version}</td><td><code>${esc(job.seed)}</code></td>
<td>${m.sample_size ?? 0} of ${m.population ?? 0}</td><td>${p.done ?? 0}/${p.planned ?? 0}</td>
<td class="muted">${esc(job.created_at.slice(0, 16).replace('T', ' '))}</td></tr>`;
    })
    .join('\n');
  const body = `<h1>Audit jobs</h1>
<p class="muted">Create jobs with <code>POST /v1/audit/jobs</code> (a key with <code>audit:write</code>) or <code>netrep audit run</code>.</p>
<section><h2>Your jobs (newest 50)</h2>${
    options.jobs.length === 0
      ? '<p class="muted">No audit jobs yet.</p>'
      : `<table><thead><tr><th>Job</th><th>Status</th><th>Gate</th><th>Dataset</th><th>Seed</th><th>Sample</th><th>Probes</th><th>Created (UTC)</th></tr></thead><tbody>${rows}</tbody></table>`
  }</section>`;
  return page('Audit jobs', body, options.viewer);
}
