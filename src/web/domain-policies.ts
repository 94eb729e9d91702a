/**
 * The domain check page's MTA-STS, TLS-RPT and BIMI sections (issue 38): the record, the facts,
 * the findings and what to do, each value escaped. They earn no points, and the page says so.
 */
import type { DomainAuthResult } from '../emailauth/index.ts';
import { esc, facts } from './html.ts';

function items(list: readonly string[], empty: string): string {
  return list.length === 0
    ? `<p class="muted">${esc(empty)}</p>`
    : `<ul>${list.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>`;
}

/** One section: what was found, the findings, and its own recommendations. */
function section(
  title: string,
  id: string,
  detail: string,
  r: { errors: string[]; warnings: string[]; recommendations: string[] },
): string {
  const findings = [...r.errors.map((e) => `Error: ${e}`), ...r.warnings.map((w) => `Warning: ${w}`)];
  return `<section aria-labelledby="${id}"><h2 id="${id}">${esc(title)}</h2>${detail}
<h3>Findings</h3>${items(findings, 'No problems found.')}
<h3>What to do</h3>${items(r.recommendations, 'Nothing to do here.')}</section>`;
}

const record = (raw: string | null, status: string, none: string) =>
  status === 'temperror'
    ? '<p class="unchecked"><strong>Could not check</strong> the record: the DNS did not answer, so nothing is said about it.</p>'
    : raw
      ? `<p><code class="record">${esc(raw)}</code></p>`
      : `<p>${esc(none)}</p>`;

function mtaSts(r: DomainAuthResult): string {
  const m = r.mta_sts;
  const p = m.policy;
  const policy = p
    ? `<h3>Policy</h3><p><code>${esc(p.url)}</code></p>${facts([
        ['Fetched', p.fetched ? `yes (HTTP ${p.http_status ?? '?'} from ${p.address ?? '?'})` : 'no'],
        ['Mode', p.mode],
        ['MX patterns', p.mx.join(', ')],
        ['max_age', p.max_age === null ? null : `${p.max_age} s`],
        ['MX hosts not covered', m.unmatched_mx.join(', ')],
        ['Valid', p.is_valid ? 'yes' : 'no'],
      ])}`
    : '';
  return section(
    'MTA-STS',
    'mta-sts-h',
    `${record(m.raw, m.status, `No MTA-STS record at ${m.record_domain}.`)}${policy}`,
    { ...m, errors: [...m.errors, ...(p?.errors ?? []).map((e) => `policy: ${e}`)] },
  );
}

function tlsRpt(r: DomainAuthResult): string {
  const t = r.tls_rpt;
  const detail = `${record(t.raw, t.status, `No TLS-RPT record at ${t.record_domain}.`)}${
    t.status === 'found' ? facts([['Reports to', t.rua.join(', ')]]) : ''
  }`;
  return section('TLS-RPT', 'tls-rpt-h', detail, t);
}

function bimi(r: DomainAuthResult): string {
  const b = r.bimi;
  const detail = `${record(b.raw, b.status, `No BIMI record at ${b.record_domain}.`)}${facts([
    ['Logo (l=)', b.declined ? 'declined' : b.logo_url],
    ['Certificate (a=)', b.authority_url],
    ['DMARC at enforcement', b.dmarc_ready ? 'yes' : 'no'],
  ])}`;
  return section('BIMI', 'bimi-h', detail, b);
}

/** The three sections, after a line saying they are not part of the grade. */
export function policySections(r: DomainAuthResult): string {
  return `<p class="muted" id="policies-note">MTA-STS, TLS-RPT and BIMI are not part of the grade: their findings are advice.</p>
${mtaSts(r)}
${tlsRpt(r)}
${bimi(r)}`;
}
