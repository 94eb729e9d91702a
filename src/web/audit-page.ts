/**
 * The dashboard's audit jobs page: the signed-in user's own jobs, each opening to its result,
 * and a form that starts a job (the same request `POST /v1/audit/jobs` takes).
 */
import type { AuditJob } from '../audit/index.ts';
import { esc, page } from './html.ts';
import type { Viewer } from './pages.ts';

/** The gate of a job run with acceptance (pass, review, fail), else ''. */
export function gateOf(job: AuditJob): string {
  const fi = job.final_interpretation as { acceptance?: { gate?: string } } | null;
  return fi?.acceptance?.gate ?? '';
}

/** What the create form was given, shown again with an error. */
export interface AuditFormValues {
  targets: string;
  dataset_version: string;
  seed: string;
  max_samples: string;
  acceptance: boolean;
}

function createForm(viewer: Viewer, v: AuditFormValues): string {
  return `<section aria-labelledby="new-h"><h2 id="new-h">Start an audit job</h2>
<form method="post" action="/dashboard/audit"><input type="hidden" name="_csrf" value="${esc(viewer.csrf)}">
<label>Targets: IP addresses, CIDR networks or ASNs (AS64500), separated by spaces or commas; up to 32
<textarea name="targets" rows="3" required maxlength="2400" spellcheck="false">${esc(v.targets)}</textarea></label>
<label>Dataset version <input type="number" name="dataset_version" min="1" step="1" required value="${esc(v.dataset_version)}"></label>
<label>Seed (the same seed and dataset sample the same addresses) <input type="text" name="seed" required maxlength="256" value="${esc(v.seed)}"></label>
<label>Largest sample <input type="number" name="max_samples" min="1" max="10000" step="1" value="${esc(v.max_samples)}"></label>
<label class="check"><input type="checkbox" name="acceptance" value="true"${v.acceptance ? ' checked' : ''}> Add the pass / review / fail gate</label>
<div class="actions"><button type="submit">Start the job</button></div></form>
<p class="muted">Each sampled address is asked of this instance's DNSBL zone and of NETREP_AUDIT_ZONES, and its reverse DNS is checked (FCrDNS). Programs start jobs with <code>POST /v1/audit/jobs</code> (a key with <code>audit:write</code>).</p></section>`;
}

export function auditPage(options: {
  viewer: Viewer;
  jobs: AuditJob[];
  form: AuditFormValues;
  error?: string;
}): string {
  const rows = options.jobs
    .map((job) => {
      const p = job.progress as { done?: number; planned?: number };
      const m = job.sampling_manifest as { sample_size?: number; population?: number };
      const gate = gateOf(job);
      return `<tr><td data-label="Job"><a href="/dashboard/audit/${job.id}">Job ${job.id}</a></td><td data-label="Status">${esc(job.status)}${job.cancel_requested && job.status === 'running' ? ' (cancel requested)' : ''}</td>
<td data-label="Gate" class="gate-${esc(gate || 'none')}">${esc(gate || '—')}</td><td data-label="Dataset">v${job.dataset_version}</td><td data-label="Seed"><code>${esc(job.seed)}</code></td>
<td data-label="Sample">${m.sample_size ?? 0} of ${m.population ?? 0}</td><td data-label="Probes">${p.done ?? 0}/${p.planned ?? 0}</td>
<td data-label="Created (UTC)" class="muted">${esc(job.created_at.slice(0, 16).replace('T', ' '))}</td></tr>`;
    })
    .join('\n');
  const body = `<h1>Audit jobs</h1>
${options.error ? `<p class="error" role="alert">${esc(options.error)}</p>` : ''}
<section aria-labelledby="jobs-h"><h2 id="jobs-h">Your jobs (newest 50)</h2>${
    options.jobs.length === 0
      ? '<p class="muted">No audit jobs yet.</p>'
      : `<table class="stack"><thead><tr><th scope="col">Job</th><th scope="col">Status</th><th scope="col">Gate</th><th scope="col">Dataset</th><th scope="col">Seed</th><th scope="col">Sample</th><th scope="col">Probes</th><th scope="col">Created (UTC)</th></tr></thead><tbody>${rows}</tbody></table>`
  }</section>
${createForm(options.viewer, options.form)}`;
  return page('Audit jobs', body, { ...options.viewer, current: '/dashboard/audit' });
}
