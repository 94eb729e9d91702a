/**
 * One audit job in the dashboard: its status and gate with the gate's reasons, the counts per
 * DNSBL zone and for FCrDNS, every observation with what the list or resolver said (listed and
 * failed probes first), and the job's events. A queued or running job can be cancelled here.
 */
import type { AuditObservation, AuditResult } from '../audit/index.ts';
import { gateOf } from './audit-page.ts';
import { esc, facts, page } from './html.ts';
import type { Viewer } from './pages.ts';

/** Observations shown on the page; the API's result has them all. */
const SHOWN = 500;

type Counts = Record<string, number>;
interface Interpretation {
  addresses?: number;
  zones?: Record<string, Counts>;
  fcrdns?: Counts;
  acceptance?: { gate?: string; reasons?: string[] };
}

const ORDER: Record<string, number> = { listed: 0, fail: 1, error: 2, timeout: 3, unknown: 4 };
const rank = (o: AuditObservation) => ORDER[o.outcome] ?? 9;

/** What the list or the resolver answered, in words. */
function said(o: AuditObservation): string {
  const raw = o.raw_provider_response as {
    reason?: string;
    txt?: string[];
    rcode?: string;
    ptr_hostname?: string | null;
  };
  if (o.observation_kind === 'fcrdns')
    return raw.ptr_hostname ? `PTR ${raw.ptr_hostname}` : (raw.reason ?? 'no PTR');
  const txt = (raw.txt ?? []).join(' ');
  return [o.raw_codes.join(', '), raw.reason ?? '', txt, o.outcome === 'not_listed' ? (raw.rcode ?? '') : '']
    .filter((x) => x !== '')
    .join(' · ');
}

function zonesTable(fi: Interpretation): string {
  const zones = Object.entries(fi.zones ?? {});
  if (zones.length === 0) return '';
  const row = (name: string, c: Counts) =>
    `<tr><td data-label="List"><code>${esc(name)}</code></td><td data-label="Listed">${c['listed'] ?? 0}</td><td data-label="Not listed">${c['not_listed'] ?? 0}</td><td data-label="Error">${c['error'] ?? 0}</td><td data-label="Timeout">${c['timeout'] ?? 0}</td></tr>`;
  const f = fi.fcrdns;
  return `<h3>Per list</h3><table class="stack"><thead><tr><th scope="col">List</th><th scope="col">Listed</th><th scope="col">Not listed</th><th scope="col">Error</th><th scope="col">Timeout</th></tr></thead><tbody>${zones
    .map(([z, c]) => row(z, c))
    .join('')}</tbody></table>${
    f ? `<p>FCrDNS: ${f['pass'] ?? 0} pass, ${f['fail'] ?? 0} fail, ${f['unknown'] ?? 0} unknown.</p>` : ''
  }`;
}

function observationsHtml(list: AuditObservation[]): string {
  if (list.length === 0) return '<p class="muted">No observations yet.</p>';
  const sorted = [...list].sort((a, b) => rank(a) - rank(b) || a.id - b.id).slice(0, SHOWN);
  return `${list.length > SHOWN ? `<p class="muted">The first ${SHOWN} of ${list.length}, listed and failed probes first; <code>GET /v1/audit/jobs/{id}/result</code> has them all.</p>` : ''}<table class="stack"><thead><tr><th scope="col">Address</th><th scope="col">Check</th><th scope="col">Outcome</th><th scope="col">Answer</th><th scope="col">Observed (UTC)</th></tr></thead><tbody>${sorted
    .map(
      (o) =>
        `<tr><td data-label="Address"><code>${esc(o.address)}</code></td><td data-label="Check">${esc(o.observation_kind === 'fcrdns' ? 'FCrDNS' : o.source_key)}</td><td data-label="Outcome" class="outcome-${esc(o.outcome)}">${esc(o.outcome.replace('_', ' '))}</td><td data-label="Answer">${esc(said(o) || '—')}</td><td data-label="Observed (UTC)" class="muted">${esc(o.observed_at.slice(0, 19).replace('T', ' '))}</td></tr>`,
    )
    .join('')}</tbody></table>`;
}

export function auditJobPage(options: { viewer: Viewer; result: AuditResult; notice?: string }): string {
  const { job, observations, events } = options.result;
  const fi = (job.final_interpretation ?? {}) as Interpretation;
  const m = job.sampling_manifest as { sample_size?: number; population?: number };
  const p = job.progress as { done?: number; planned?: number };
  const gate = gateOf(job);
  const reasons = fi.acceptance?.reasons ?? [];
  const open = job.status === 'queued' || job.status === 'running';
  const cancel =
    open && !job.cancel_requested
      ? `<form method="post" action="/dashboard/audit/${job.id}/cancel"><input type="hidden" name="_csrf" value="${esc(options.viewer.csrf)}"><div class="actions"><button type="submit" class="danger">Cancel the job</button></div></form>`
      : '';
  const body = `<p><a href="/dashboard/audit">← All audit jobs</a></p><h1>Audit job ${job.id}</h1>
${options.notice ? `<p class="notice" role="status">${esc(options.notice)}</p>` : ''}
<section aria-labelledby="sum-h"><h2 id="sum-h">Summary</h2>${facts([
    ['Status', `${job.status}${job.cancel_requested && open ? ' (cancel requested)' : ''}`],
    ['Gate', gate || (open ? 'not yet' : 'none asked')],
    ['Dataset', `v${job.dataset_version}`],
    ['Seed', job.seed],
    ['Sample', `${m.sample_size ?? 0} of ${m.population ?? 0} addresses`],
    ['Probes', `${p.done ?? 0} of ${p.planned ?? 0}`],
    ['Created (UTC)', job.created_at.slice(0, 19).replace('T', ' ')],
    ['Error', job.error_detail],
  ])}${reasons.length > 0 ? `<h3>Why this gate</h3><ul>${reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>` : ''}${zonesTable(fi)}${cancel}</section>
<section aria-labelledby="obs-h"><h2 id="obs-h">Observations (${observations.length})</h2>${observationsHtml(observations)}</section>
<section aria-labelledby="ev-h"><h2 id="ev-h">Events</h2><ol class="events">${events
    .map(
      (e) =>
        `<li>${esc(e.created_at.slice(0, 19).replace('T', ' '))} UTC: <strong>${esc(e.event_type)}</strong> by <code>${esc(e.actor)}</code>${
          Object.keys(e.detail).length > 0
            ? ` <span class="muted">${esc(JSON.stringify(e.detail))}</span>`
            : ''
        }</li>`,
    )
    .join('')}</ol></section>`;
  return page(`Audit job ${job.id}`, body, { ...options.viewer, current: '/dashboard/audit' });
}
