/**
 * Dashboard → Reports (issue #38 item 2): the signed-in user's DMARC aggregate, failure and SMTP
 * TLS reports. The domains list with the upload form and its outcome, the rejected uploads, and
 * one domain's page: the DMARC summary with its charts, the sending sources (by IP or by
 * organisation, paged, with a CSV link), failure samples and TLS failures. Everything a report
 * says came from outside (reporter names, reasons, subjects): all of it goes through esc().
 */
import type {
  DomainFailures,
  DomainSources,
  DomainSummary,
  DomainTls,
  IpSource,
  OrganizationSource,
  RejectedReport,
  ReportDomain,
  ReportSummary,
} from '../reports/index.ts';
import { esc, facts, page } from './html.ts';
import type { Viewer } from './pages.ts';
import { passRateChart, volumeChart } from './report-charts.ts';

/** What an upload came to: stored (new or a duplicate) or refused with its reason. */
export type UploadOutcome =
  | { kind: 'stored' | 'duplicate'; report: ReportSummary }
  | { kind: 'rejected'; id: number; reason: string };

const CURRENT = '/dashboard/reports';
/** Outside text in a cell: wrapped anywhere so a long name never widens the page. */
const td = (label: string, html: string) =>
  `<td data-label="${esc(label)}" style="overflow-wrap:anywhere">${html}</td>`;
const th = (names: string[]) =>
  `<thead><tr>${names.map((n) => `<th scope="col">${esc(n)}</th>`).join('')}</tr></thead>`;
const table = (names: string[], rows: string[]) =>
  `<table class="stack">${th(names)}<tbody>${rows.join('\n')}</tbody></table>`;
const count = (n: number) => n.toLocaleString('en');
const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '—');
const time = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')}`;
const list = (values: readonly string[]) => (values.length ? values.map(esc).join(', ') : '—');

/** A pass rate in colour and in words (the colour is never the only sign). */
export function passRate(rate: number | null): string {
  if (rate === null) return '<span class="muted">no messages</span>';
  const pct = `${+(rate * 100).toFixed(1)}%`;
  const [cls, word] =
    rate >= 0.98 ? ['grade-A', 'good'] : rate >= 0.9 ? ['grade-C', 'fair'] : ['grade-F', 'poor'];
  return `<strong class="${cls}">${pct} pass (${word})</strong>`;
}

function uploadNotice(o: UploadOutcome | undefined): string {
  if (!o) return '';
  if (o.kind === 'rejected')
    return `<p class="error" role="alert">Rejected: ${esc(o.reason)} The upload is kept as <a href="/dashboard/reports/rejected">rejected upload ${o.id}</a>.</p>`;
  const r = o.report;
  const what = `${esc(r.kind)} report ${esc(r.report_id)} from ${esc(r.org_name)}${r.domain ? ` for ${esc(r.domain)}` : ''} (${count(r.message_count)} ${r.kind === 'tls' ? 'sessions' : 'messages'}, ${day(r.begin)} to ${day(r.end)})`;
  return o.kind === 'stored'
    ? `<p class="notice" role="status">Stored: ${what}.</p>`
    : `<p class="notice" role="status">Already stored: ${what}. Nothing new was written.</p>`;
}

function uploadForm(viewer: Viewer): string {
  return `<section aria-labelledby="upload-h"><h2 id="upload-h">Upload a report</h2>
<form method="post" action="/dashboard/reports/upload" enctype="multipart/form-data"><input type="hidden" name="_csrf" value="${esc(viewer.csrf)}">
<label>Report file <input type="file" name="report" required></label>
<div class="actions"><button type="submit">Upload</button></div></form>
<p class="muted">A DMARC aggregate report (XML, gzip or zip), a DMARC failure report, an SMTP TLS report (JSON), or the whole email carrying one. Programs send the same to <code>POST /v1/email/reports</code>. Uploads that cannot be read are kept with their reason: <a href="/dashboard/reports/rejected">rejected uploads</a>.</p></section>`;
}

export function reportsPage(o: {
  viewer: Viewer;
  domains: ReportDomain[];
  total: number;
  outcome?: UploadOutcome;
  error?: string;
}): string {
  const rows = o.domains.map(
    (d) =>
      `<tr>${td('Domain', `<a href="${esc(domainLink(d.domain, { group: 'ip', offset: 0 }))}">${esc(d.domain)}</a>`)}${td('Reports', `${count(d.reports)} <span class="muted">(${d.aggregate_reports} aggregate, ${d.failure_reports} failure, ${d.tls_reports} TLS)</span>`)}${td('Messages', count(d.messages))}${td('DMARC', passRate(d.dmarc_pass_rate))}${td('Periods (UTC)', `${day(d.first_begin)} to ${day(d.last_end)}`)}</tr>`,
  );
  const body = `<h1>Reports</h1>
${o.error ? `<p class="error" role="alert">${esc(o.error)}</p>` : ''}${uploadNotice(o.outcome)}
<section aria-labelledby="domains-h"><h2 id="domains-h">Domains</h2>${
    o.domains.length === 0
      ? '<p class="muted">No reports yet. Upload one below, or point NETREP_REPORTS_IMAP_URL at the mailbox your rua= and ruf= addresses deliver to.</p>'
      : `${table(['Domain', 'Reports', 'Messages', 'DMARC', 'Periods (UTC)'], rows)}${
          o.total > o.domains.length
            ? `<p class="muted">The first ${o.domains.length} of ${o.total} domains.</p>`
            : ''
        }`
  }</section>
${uploadForm(o.viewer)}`;
  return page('Reports', body, { ...o.viewer, current: CURRENT });
}

export function rejectedReportsPage(o: {
  viewer: Viewer;
  rejected: RejectedReport[];
  total: number;
}): string {
  const rows = o.rejected.map(
    (r) =>
      `<tr>${td('Upload', String(r.id))}${td('Received (UTC)', esc(time(r.received_at)))}${td('Reason', esc(r.reason))}${td('Content type', esc(r.content_type ?? '—'))}${td('Size', `${count(r.size)} bytes${r.raw_truncated ? ' (first 256 KiB kept)' : ''}`)}</tr>`,
  );
  const body = `<h1>Reports → rejected uploads</h1><p><a href="${CURRENT}">Back to the domains</a></p>
<section aria-labelledby="rejected-h"><h2 id="rejected-h">Uploads that could not be stored (newest ${o.rejected.length} of ${o.total})</h2>${
    o.rejected.length === 0
      ? '<p class="muted">None.</p>'
      : table(['Upload', 'Received (UTC)', 'Reason', 'Content type', 'Size'], rows)
  }<p class="muted">The kept bytes are in <code>GET /v1/email/reports/rejected</code> (base64).</p></section>`;
  return page('Rejected uploads', body, { ...o.viewer, current: CURRENT });
}

/** The query a domain page was asked with: the period as given and the sources' grouping and page. */
export interface DomainQuery {
  from?: string | undefined;
  to?: string | undefined;
  group: 'ip' | 'organization';
  offset: number;
}

export interface DomainViews {
  summary: DomainSummary;
  sources: DomainSources;
  failures: DomainFailures;
  tls: DomainTls;
}

/** A link to this domain's page (or its CSV) with the period and `change` applied. */
export function domainLink(domain: string, q: DomainQuery, change: Partial<DomainQuery> = {}, csv = false) {
  const next = { ...q, ...change };
  const params = new URLSearchParams();
  if (next.from) params.set('from', next.from);
  if (next.to) params.set('to', next.to);
  if (next.group !== 'ip') params.set('group', next.group);
  if (next.offset > 0 && !csv) params.set('offset', String(next.offset));
  const query = params.toString();
  return `${CURRENT}/${encodeURIComponent(domain)}${csv ? '/sources.csv' : ''}${query ? `?${query}` : ''}`;
}

function periodForm(domain: string, q: DomainQuery, period: { from: string; to: string } | null): string {
  return `<form method="get" action="${esc(domainLink(domain, { group: 'ip', offset: 0 }))}" class="tool" aria-label="Period">
<label for="from">From (UTC day)</label><input type="text" id="from" name="from" inputmode="numeric" placeholder="YYYY-MM-DD" maxlength="10" value="${esc(q.from ?? period?.from ?? '')}">
<label for="to">To (UTC day, inclusive)</label><input type="text" id="to" name="to" inputmode="numeric" placeholder="YYYY-MM-DD" maxlength="10" value="${esc(q.to ?? period?.to ?? '')}">
${q.group === 'ip' ? '' : `<input type="hidden" name="group" value="${esc(q.group)}">`}<button type="submit">Show</button></form>`;
}

function summarySection(s: DomainSummary): string {
  const d = s.dispositions;
  const overrides = s.overrides.map(
    (o) =>
      `<tr>${td('Reason', esc(o.type))}${td('Rows', count(o.rows))}${td('Messages', count(o.messages))}</tr>`,
  );
  const policies = s.policies.map(
    (p) =>
      `<tr>${td('p', esc(p.p ?? '—'))}${td('sp', esc(p.sp ?? '—'))}${td('adkim / aspf', `${esc(p.adkim ?? '—')} / ${esc(p.aspf ?? '—')}`)}${td('pct', esc(p.pct ?? '—'))}${td('Reports', count(p.reports))}</tr>`,
  );
  const reporters = s.reporters.map(
    (r) =>
      `<tr>${td('Reporter', esc(r.org_name))}${td('Reports', count(r.reports))}${td('Messages', count(r.messages))}</tr>`,
  );
  const opts = { id: 'volume', label: `Messages per day for ${s.domain}, DMARC pass and fail` };
  return `<section aria-labelledby="summary-h"><h2 id="summary-h">DMARC summary, ${esc(s.period.from)} to ${esc(s.period.to)}</h2>
<p class="grade">${passRate(s.dmarc_pass_rate)}</p>
${facts([
  ['Aggregate reports', count(s.reports)],
  ['Messages', count(s.messages)],
  ['DMARC pass / fail', `${count(s.dmarc_pass)} / ${count(s.dmarc_fail)}`],
  ['SPF aligned pass', count(s.spf_aligned_pass)],
  ['DKIM aligned pass', count(s.dkim_aligned_pass)],
  [
    'Dispositions',
    `none ${count(d.none)} · quarantine ${count(d.quarantine)} · reject ${count(d.reject)} · pass ${count(d.pass)}`,
  ],
])}
<div class="actions">${volumeChart(s.daily, opts)}${passRateChart(s.daily, { id: 'rate', label: `DMARC pass rate per day for ${s.domain}` })}</div>
<h3>Policy overrides by reason</h3>${overrides.length ? table(['Reason', 'Rows', 'Messages'], overrides) : '<p class="muted">None.</p>'}
<h3>Policies seen</h3>${policies.length ? table(['p', 'sp', 'adkim / aspf', 'pct', 'Reports'], policies) : '<p class="muted">None.</p>'}
<h3>Reporters</h3>${reporters.length ? table(['Reporter', 'Reports', 'Messages'], reporters) : '<p class="muted">None.</p>'}</section>`;
}

const scored = (level: string | null, score: number | null) =>
  level === null ? '—' : `${esc(level)} (${esc(score ?? '—')})`;
const sums = (r: IpSource | OrganizationSource) =>
  `${count(r.messages)} <span class="muted">(pass ${count(r.dmarc_pass)}, fail ${count(r.dmarc_fail)}; SPF ${count(r.spf_aligned_pass)}, DKIM ${count(r.dkim_aligned_pass)} aligned)</span>`;
const network = (asn: number | null, name: string | null) =>
  asn === null ? '<span class="muted">unknown</span>' : `AS${asn} ${esc(name ?? '')}`;

function ipRow(r: IpSource): string {
  const where = [r.country, r.connection_type, r.cloud_provider].filter((v) => v !== null).map(esc);
  return `<tr>${td('Address', `<a href="/tools/ip?ip=${esc(encodeURIComponent(r.ip))}">${esc(r.ip)}</a>`)}${td('Messages', sums(r))}${td('Network', `${network(r.asn, r.asn_name)}${where.length ? `<br><span class="muted">${where.join(' · ')}</span>` : ''}`)}${td('Threat', scored(r.threat_level, r.threat_score))}${td('Reputation', scored(r.reputation_level, r.reputation_score))}${td('Reporters', list(r.reporters))}</tr>`;
}

function orgRow(r: OrganizationSource): string {
  const where = [...r.countries, ...r.cloud_providers].map(esc);
  return `<tr>${td('Organisation', `${network(r.asn, r.asn_name)}${where.length ? `<br><span class="muted">${where.join(' · ')}</span>` : ''}`)}${td('Addresses', count(r.ip_count))}${td('Messages', sums(r))}${td('Highest threat', esc(r.threat_score_max ?? '—'))}${td('Lowest reputation', esc(r.reputation_score_min ?? '—'))}${td('Reporters', list(r.reporters))}</tr>`;
}

function sourcesSection(s: DomainSources, q: DomainQuery): string {
  const here = (g: DomainQuery['group'], name: string) =>
    `<a href="${esc(domainLink(s.domain, q, { group: g, offset: 0 }))}"${q.group === g ? ' aria-current="page"' : ''}>${name}</a>`;
  const rows =
    s.group === 'ip'
      ? table(
          ['Address', 'Messages', 'Network', 'Threat', 'Reputation', 'Reporters'],
          (s.sources as IpSource[]).map(ipRow),
        )
      : table(
          ['Organisation', 'Addresses', 'Messages', 'Highest threat', 'Lowest reputation', 'Reporters'],
          (s.sources as OrganizationSource[]).map(orgRow),
        );
  const prev =
    s.offset > 0
      ? `<a href="${esc(domainLink(s.domain, q, { offset: Math.max(0, s.offset - s.limit) }))}">Previous ${s.limit}</a>`
      : '';
  const next =
    s.offset + s.limit < s.total
      ? `<a href="${esc(domainLink(s.domain, q, { offset: s.offset + s.limit }))}">Next ${s.limit}</a>`
      : '';
  const shown = s.sources.length === 0 ? '' : `${s.offset + 1}-${s.offset + s.sources.length} of ${s.total}`;
  return `<section aria-labelledby="sources-h"><h2 id="sources-h">Who sends as ${esc(s.domain)}</h2>
<nav aria-label="Group sources" class="actions">${here('ip', 'By address')}${here('organization', 'By organisation')}<a href="${esc(domainLink(s.domain, q, {}, true))}">Download this page as CSV</a></nav>
${s.sources.length === 0 ? '<p class="muted">No sources in this period.</p>' : rows}
<p class="actions"><span class="muted">${shown}</span>${prev}${next}</p></section>`;
}

function failuresSection(f: DomainFailures): string {
  const rows = f.failures.map(
    (x) =>
      `<tr>${td('Received (UTC)', esc(time(x.received_at)))}${td('Reporter', esc(x.org_name))}${td('Source', esc(x.source_ip ?? '—'))}${td('Failed', esc(x.auth_failure ?? x.feedback_type))}${td('From / to', `${esc(x.original_mail_from ?? '—')} → ${esc(x.original_rcpt_to ?? '—')}`)}${td('Subject', esc(x.subject ?? '—'))}</tr>`,
  );
  return `<section aria-labelledby="failures-h"><h2 id="failures-h">Failure samples${f.total ? ` (newest ${f.failures.length} of ${f.total})` : ''}</h2>${
    rows.length
      ? table(['Received (UTC)', 'Reporter', 'Source', 'Failed', 'From / to', 'Subject'], rows)
      : '<p class="muted">None.</p>'
  }</section>`;
}

function tlsSection(t: DomainTls): string {
  const policies = t.policies.map(
    (p) =>
      `<tr>${td('Policy', esc(p.policy_type))}${td('MX hosts', list(p.mx_hosts))}${td('Reports', count(p.reports))}${td('Sessions ok / failed', `${count(p.successful_sessions)} / ${count(p.failed_sessions)}`)}</tr>`,
  );
  const failures = t.failures.map(
    (x) =>
      `<tr>${td('Receiving MX', esc(x.receiving_mx_hostname ?? '—'))}${td('Result', esc(x.result_type))}${td('Failed sessions', count(x.failed_sessions))}${td('Receiving IPs', list(x.receiving_ips))}${td('Sending MTAs', list(x.sending_mta_ips))}${td('Reporters', list(x.reporters))}</tr>`,
  );
  return `<section aria-labelledby="tls-h"><h2 id="tls-h">SMTP TLS, ${esc(t.period.from)} to ${esc(t.period.to)}</h2>
${facts([
  ['TLS reports', count(t.reports)],
  ['Sessions ok / failed', `${count(t.successful_sessions)} / ${count(t.failed_sessions)}`],
])}
<h3>Policies</h3>${policies.length ? table(['Policy', 'MX hosts', 'Reports', 'Sessions ok / failed'], policies) : '<p class="muted">None.</p>'}
<h3>Failures by receiving MTA and result</h3>${
    failures.length
      ? table(
          ['Receiving MX', 'Result', 'Failed sessions', 'Receiving IPs', 'Sending MTAs', 'Reporters'],
          failures,
        )
      : '<p class="muted">None.</p>'
  }</section>`;
}

/** One domain's page; with `error` (a refused period or domain) the form and the message only. */
export function reportDomainPage(o: {
  viewer: Viewer;
  domain: string;
  query: DomainQuery;
  views?: DomainViews;
  error?: string;
}): string {
  const v = o.views;
  const body = `<h1>Reports → ${esc(o.domain)}</h1><p><a href="${CURRENT}">All domains</a></p>
${o.error ? `<p class="error" role="alert" id="form-error">${esc(o.error)}</p>` : ''}
${periodForm(o.domain, o.query, v?.summary.period ?? null)}
${v ? `${summarySection(v.summary)}${sourcesSection(v.sources, o.query)}${failuresSection(v.failures)}${tlsSection(v.tls)}` : ''}`;
  return page(`Reports: ${o.domain}`, body, { ...o.viewer, current: CURRENT });
}
