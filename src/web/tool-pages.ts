/**
 * The public tool pages (issue 19): the start page and one page per anonymous tool. Each page is a
 * plain GET or POST form the server answers, so it works without JavaScript; every value is
 * escaped with `esc`. The answers are the API's answer shapes, rendered as they are.
 */
import { type DomainAuthResult, dnsFailureLabel } from '../emailauth/index.ts';
import type { Authentication, HeaderAnalysis, Hop, ResultEntry } from '../headers/index.ts';
import { policySections } from './domain-policies.ts';
import { describedBy, esc, facts, page, problem } from './html.ts';

const yesNo = (v: boolean) => (v ? 'yes' : 'no');

function list(items: readonly string[], empty: string): string {
  return items.length === 0
    ? `<p class="muted">${esc(empty)}</p>`
    : `<ul>${items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>`;
}

export interface ToolLink {
  href: string;
  name: string;
  text: string;
}

export const TOOLS: readonly ToolLink[] = [
  {
    href: '/tools/ip',
    name: 'IP lookup',
    text: 'Network, ASN, country, flags (datacenter, VPN, Tor, crawler…), threat score and geolocation of an address.',
  },
  {
    href: '/tools/domain',
    name: 'Domain check',
    text: 'MX, SPF, DKIM and DMARC of a domain with a grade, MTA-STS, TLS-RPT and BIMI, the findings of each record and what to fix.',
  },
  {
    href: '/tools/headers',
    name: 'Email header analysis',
    text: 'Paste the headers of a message: the delivery path with delays, who each hop is, authentication results and anomalies.',
  },
  {
    href: '/tools/blocklist',
    name: 'Blocklist check',
    text: 'Is an address on this instance’s blocklist, why, and until when.',
  },
];

export function homePage(options: { datasetVersion: number | null; perMinute: number }): string {
  const body = `<h1>netrep</h1>
<p>This instance answers questions about IP addresses and email senders: IP intelligence, a DNS blocklist,
sending-IP reputation, email authentication checks and threat feeds. The tools below need no account
(${esc(options.perMinute)} requests a minute per address); an API key from the dashboard gives programs the same answers.</p>
<section aria-labelledby="tools-h"><h2 id="tools-h">Tools</h2><ul class="cards">${TOOLS.map(
    (t) => `<li><a href="${t.href}"><strong>${esc(t.name)}</strong></a><br><span>${esc(t.text)}</span></li>`,
  ).join('')}</ul></section>
<section aria-labelledby="more-h"><h2 id="more-h">For programs and operators</h2><ul>
<li><a href="/dashboard">Dashboard</a>: sign in to create and revoke API keys and see their usage.</li>
<li><a href="/docs">API documentation</a> (<a href="/openapi.json">OpenAPI document</a>).</li>
<li><a href="/feeds">Threat feeds</a>: daily lists for firewalls and filters, downloaded with an API key.</li></ul>
<p class="muted">${options.datasetVersion === null ? 'No IP dataset is loaded yet.' : `Serving IP dataset version ${esc(options.datasetVersion)}.`}</p></section>`;
  return page('Home', body);
}

// ---- Domain check ----

/** A DNS failure, not a finding about the record: "could not check", never "Error". */
const isUnread = (message: string) => message.startsWith('DNS ') || message.startsWith('temperror: ');

function findings(
  title: string,
  id: string,
  errors: readonly string[],
  warnings: readonly string[],
  detail: string,
) {
  const items = [
    ...errors.map((e) => (isUnread(e) ? `Could not check: ${e.replace(/^temperror: /, '')}` : `Error: ${e}`)),
    ...warnings.map((w) => `Warning: ${w}`),
  ];
  return `<section aria-labelledby="${id}"><h2 id="${id}">${esc(title)}</h2>${detail}
<h3>Findings</h3>${list(items, 'No problems found.')}</section>`;
}

/** Said instead of "no record" when the record could not be read (issue 31). */
function couldNotCheck(what: string): string {
  return `<p class="unchecked"><strong>Could not check</strong> ${esc(what)}: the DNS did not answer, so nothing is said about it.</p>`;
}

/** The notice of an incomplete answer: what could not be checked, by whom, and what to do. */
function incompleteNotice(r: DomainAuthResult, resolvers: string | undefined): string {
  if (r.complete) return '';
  const status = r.record_status;
  const records = [
    status.mx === 'temperror' ? 'MX' : null,
    status.spf === 'temperror' ? 'SPF' : null,
    ...Object.entries(status.dkim)
      .filter(([, v]) => v === 'temperror')
      .map(([selector]) => `DKIM selector ${selector}`),
    status.dmarc === 'temperror' ? 'DMARC' : null,
  ].filter((x) => x !== null);
  const queries = r.unchecked.map((u) => `${u.query}: ${dnsFailureLabel(u.error)}`);
  return `<div class="error" role="status" id="incomplete"><p><strong>Incomplete: could not check ${esc(
    records.length > 0 ? records.join(', ') : 'every lookup',
  )}.</strong> The grade counts only the records that could be read; a record that could not be checked earns no points and is not reported missing.</p>
<p>${esc(resolvers ? `${resolvers.charAt(0).toUpperCase()}${resolvers.slice(1)}` : 'The DNS resolvers of this instance (NETREP_DNS_SERVERS)')} did not answer ${esc(
    queries.length === 1 ? 'one query' : `${queries.length} queries`,
  )}. Try again later.</p>${queries.length > 0 ? `<ul>${queries.map((q) => `<li><code>${esc(q)}</code></li>`).join('')}</ul>` : ''}</div>`;
}

type DkimKey = DomainAuthResult['dkim'][number];
type MxHost = DomainAuthResult['mx']['hosts'][number];

/** The grade, the incomplete notice when the answer is one, and what was counted. */
function gradeCard(r: DomainAuthResult, resolvers: string | undefined): string {
  return `<section aria-labelledby="grade-h" class="grade-card"><h2 id="grade-h">${esc(r.domain)}</h2>
<p class="grade grade-${esc(r.grade)}"><span class="letter" aria-label="grade ${esc(r.grade)}${r.complete ? '' : ', incomplete'}">${esc(r.grade)}</span> <span>${esc(r.score)}/100${r.complete ? '' : ' from the records that could be read'}</span></p>
${incompleteNotice(r, resolvers)}
<p class="muted">MX 10 + SPF 25 + DKIM 30 + DMARC 35 points. Checked ${esc(r.checked_at)} with ${esc(r.dns.lookups)} DNS queries${r.dns.deadline_exceeded ? ' (some answers were cut off by the deadline)' : ''}.</p></section>`;
}

/** One MX host: its preference, name and addresses, or why it has none. */
function mxHostItem(r: DomainAuthResult, h: MxHost): string {
  return `<li>${esc(h.preference)} <code>${esc(h.exchange)}</code> ${h.resolves ? esc(h.addresses.join(', ')) : r.unchecked.some((u) => u.record === 'mx' && u.query.startsWith(`${h.exchange} `)) ? '(<strong>could not check</strong> its address)' : '(does not resolve)'}</li>`;
}

function mxFindings(r: DomainAuthResult): string {
  return findings(
    'MX',
    'mx-h',
    r.mx.errors,
    [],
    r.record_status.mx === 'temperror' && r.mx.hosts.length === 0
      ? couldNotCheck('the MX records')
      : r.mx.null_mx
        ? '<p>Null MX: the domain accepts no mail.</p>'
        : `<ul>${r.mx.hosts.map((h) => mxHostItem(r, h)).join('') || '<li>No MX records.</li>'}</ul>`,
  );
}

function spfFindings(r: DomainAuthResult): string {
  const unread = r.record_status.spf === 'temperror';
  return findings(
    'SPF',
    'spf-h',
    r.spf.validation_errors,
    r.spf.warnings,
    unread && !r.spf.found
      ? couldNotCheck('the SPF record')
      : `${r.spf.raw ? `<p><code class="record">${esc(r.spf.raw)}</code></p>` : '<p>No SPF record.</p>'}${
          unread ? couldNotCheck('every lookup this record needs') : ''
        }${facts([
          ['Records', r.spf.record_count],
          ['Ends in all', r.spf.all_qualifier === null ? 'no' : `${r.spf.all_qualifier}all`],
          ['DNS lookups', `${r.spf.dns_lookup_count} of 10`],
          ['Void lookups', `${r.spf.void_lookup_count} of 2`],
          ['Includes', r.spf.includes.join(', ')],
          ['Valid', unread ? 'could not check' : yesNo(r.spf.is_valid)],
        ])}`,
  );
}

/** One DKIM selector's line: its key's type, size and flags, "could not check" or "not found". */
function dkimItem(r: DomainAuthResult, d: DkimKey): string {
  return `<li><code>${esc(d.record_domain)}</code>: ${
    d.found
      ? `${esc(d.key_type ?? 'unknown')} key${d.key_bits ? `, ${esc(d.key_bits)} bits` : ''}${d.testing ? ', testing' : ''}${d.revoked ? ', revoked' : ''}`
      : r.record_status.dkim[d.selector] === 'temperror'
        ? '<strong>could not check</strong>'
        : 'not found'
  }</li>`;
}

/** The DKIM section: each selector's key, the selectors whose record could not be read, and the errors of both. */
function dkimFindings(r: DomainAuthResult): string {
  const unreadSelectors = Object.entries(r.record_status.dkim)
    .filter(([selector, v]) => v === 'temperror' && !r.dkim.some((d) => d.selector === selector))
    .map(([selector]) => selector);
  const dkimRows = [
    ...r.dkim.map((d) => dkimItem(r, d)),
    ...unreadSelectors.map(
      (selector) =>
        `<li><code>${esc(`${selector}._domainkey.${r.domain}`)}</code>: <strong>could not check</strong></li>`,
    ),
  ];
  const dkim =
    dkimRows.length === 0
      ? '<p class="muted">No DKIM key found at the common selectors.</p>'
      : `<ul>${dkimRows.join('')}</ul>`;
  // A failed lookup names its selector itself (DNS … while looking up s1._domainkey.…).
  const dkimErrors = r.dkim.flatMap((d) =>
    d.validation_errors.map((e) => (isUnread(e) ? e : `${d.selector}: ${e}`)),
  );
  const dkimUnread = r.unchecked
    .filter((u) => u.record === 'dkim' && unreadSelectors.some((s) => u.query.startsWith(`${s}._domainkey.`)))
    .map((u) => `DNS ${u.error} while looking up ${u.query}`);
  return findings('DKIM', 'dkim-h', [...dkimErrors, ...dkimUnread], [], dkim);
}

function dmarcFindings(r: DomainAuthResult): string {
  return findings(
    'DMARC',
    'dmarc-h',
    r.dmarc.validation_errors,
    r.dmarc.warnings,
    r.record_status.dmarc === 'temperror'
      ? couldNotCheck('the DMARC record')
      : `${r.dmarc.raw ? `<p><code class="record">${esc(r.dmarc.raw)}</code></p>` : '<p>No DMARC record.</p>'}${facts(
          [
            ['Policy', r.dmarc.effective_policy],
            ['Strength', r.dmarc.strength_rating],
            ['Percentage', `${r.dmarc.percentage} %`],
            ['Reports to', r.dmarc.aggregate_report_uris.join(', ')],
            ['Record at', r.dmarc.record_domain],
          ],
        )}`,
  );
}

function domainAnswerHtml(r: DomainAuthResult, resolvers: string | undefined): string {
  return `${gradeCard(r, resolvers)}
<section aria-labelledby="rec-h"><h2 id="rec-h">Recommendations</h2>${list(r.recommendations, 'Nothing to improve.')}</section>
${mxFindings(r)}
${spfFindings(r)}
${dkimFindings(r)}
${dmarcFindings(r)}
${policySections(r)}`;
}

export function domainToolPage(options: {
  domain?: string;
  answer?: DomainAuthResult;
  error?: string;
  /** The resolvers named when records could not be checked (describeResolvers). */
  resolvers?: string;
}): string {
  const body = `<h1>Domain check</h1>
<form method="get" action="/tools/domain" class="tool">${problem(options.error)}
<label for="domain">Domain name</label>
<input type="text" id="domain" name="domain" value="${esc(options.domain)}" required maxlength="300" autocomplete="off" spellcheck="false" placeholder="example.com"${describedBy(options.error)}>
<button type="submit">Check</button></form>
${options.answer ? domainAnswerHtml(options.answer, options.resolvers) : ''}`;
  return page(options.domain ? `Domain check ${options.domain}` : 'Domain check', body);
}

// ---- Header analysis ----

function hopHtml(h: Hop, n: number): string {
  const who = [
    h.asn !== null ? `AS${h.asn}${h.asn_name ? ` ${h.asn_name}` : ''}` : null,
    h.country,
    h.cloud_provider,
    h.connection_type,
    h.threat_score !== null ? `threat ${h.threat_score}/100` : null,
  ].filter((x) => x !== null);
  return `<li><p><strong>Hop ${n}</strong>${h.delay !== null ? ` <span class="delay">${esc(h.delay.startsWith('-') ? h.delay : `+${h.delay}`)}<span class="visually-hidden"> after the previous hop</span></span>` : ''}</p>
<p>${esc(h.from_host ?? 'unknown')}${h.from_ip ? ` [<code>${esc(h.from_ip)}</code>]` : ''} → ${esc(h.by_host ?? 'unknown')}</p>
<p class="muted">${esc([h.protocol_raw ?? h.protocol, h.timestamp].filter((x) => x).join(' · ') || (h.parsed ? 'no date' : 'could not be read'))}</p>
${who.length > 0 ? `<p class="muted">${esc(who.join(' · '))}</p>` : ''}</li>`;
}

/** One result as the receiver wrote it, e.g. `dkim=fail header.d=outlook.com header.s=selector1`. */
function resultText(r: ResultEntry): string {
  const props = Object.entries(r.properties).map(([k, v]) => `${k}=${v}`);
  return [`${r.method}=${r.result}`, ...props].join(' ') + (r.reason ? ` (${r.reason})` : '');
}

/** Every Authentication-Results header with its trust, every DKIM-Signature and the ARC chain. */
function authDetailsHtml(auth: Authentication): string {
  const trust =
    auth.trust_source === 'configured'
      ? 'Trusted: the authserv-ids this server is configured with (NETREP_TRUSTED_AUTHSERV_IDS).'
      : 'Trusted: the top-most header, written by the last receiver, and others with its authserv-id.';
  const results =
    auth.authentication_results.length === 0
      ? '<p class="muted">No Authentication-Results headers.</p>'
      : `<p class="muted">${esc(trust)}</p><table class="stack"><thead><tr><th scope="col">Checked by</th><th scope="col">Trusted</th><th scope="col">Results</th></tr></thead><tbody>${auth.authentication_results
          .map(
            (h) =>
              `<tr><td>${esc(h.authserv_id ?? '(none given)')}</td><td>${yesNo(h.trusted)}</td><td>${
                h.results.length === 0
                  ? '—'
                  : `<ul>${h.results.map((r) => `<li><code>${esc(resultText(r))}</code></li>`).join('')}</ul>`
              }</td></tr>`,
          )
          .join('')}</tbody></table>`;
  const signatures = list(
    auth.dkim_signatures.map(
      (d) => `d=${d.domain ?? '?'} s=${d.selector ?? '?'}${d.algorithm ? ` a=${d.algorithm}` : ''}`,
    ),
    'No DKIM-Signature headers.',
  );
  const arc = auth.arc;
  const arcHtml =
    arc.seals.length === 0 && arc.authentication_results.length === 0
      ? '<p class="muted">No ARC headers.</p>'
      : `${facts([
          ['Instances', arc.instances],
          ['Last verdict (cv=)', arc.verdict],
          ['Structure', arc.chain_problem ?? 'sound (signatures not verified)'],
        ])}${list(
          [
            ...arc.seals.map(
              (x) =>
                `ARC-Seal i=${x.instance ?? '?'} cv=${x.cv ?? '?'} d=${x.domain ?? '?'} s=${x.selector ?? '?'}`,
            ),
            ...arc.authentication_results.map(
              (r) =>
                `ARC-Authentication-Results i=${r.instance ?? '?'} by ${r.authserv_id ?? '(none given)'}: ${
                  r.results.map((x) => `${x.method}=${x.result}`).join(' ') || '—'
                }`,
            ),
          ],
          '',
        )}`;
  return `<section aria-labelledby="ar-h"><h2 id="ar-h">Authentication-Results headers</h2>${results}</section>
<section aria-labelledby="dkim-h"><h2 id="dkim-h">DKIM signatures</h2>${signatures}</section>
<section aria-labelledby="arc-h"><h2 id="arc-h">ARC chain</h2>${arcHtml}</section>`;
}

function headersAnswerHtml(a: HeaderAnalysis): string {
  const auth = a.authentication;
  const infra = a.infrastructure;
  return `<section aria-labelledby="path-h"><h2 id="path-h">Delivery path</h2>${
    a.received_chain.length === 0
      ? '<p class="muted">No Received headers.</p>'
      : `<ol class="timeline">${a.received_chain.map((h, i) => hopHtml(h, i + 1)).join('')}</ol>`
  }</section>
<section aria-labelledby="auth-h"><h2 id="auth-h">Authentication</h2>${facts([
    ['SPF', auth.spf_result],
    ['DKIM signature', auth.dkim_result],
    ['DKIM result', auth.dkim_verdict],
    ['DKIM selector', auth.dkim_selector],
    ['DKIM domain', auth.dkim_domain],
    ['DMARC result', auth.dmarc_result],
    ['Published DMARC policy', auth.dmarc_policy],
    ['ARC', auth.arc_result],
    ['Checked by', auth.authserv_id],
    ['Checker trusted', yesNo(auth.authserv_id_trusted)],
  ])}</section>
${authDetailsHtml(auth)}
<section aria-labelledby="origin-h"><h2 id="origin-h">Origin</h2>${facts([
    ['Origin IP', infra.origin_ip],
    ['First public IP', infra.origin_public_ip],
    ['From domain', infra.from_domain],
    ['Return-Path domain', infra.return_path_domain],
    ['X-Mailer', infra.x_mailer],
    ['User-Agent', infra.user_agent],
  ])}</section>
<section aria-labelledby="anom-h"><h2 id="anom-h">Anomalies</h2>${list(a.anomalies, 'None found.')}</section>`;
}

export function headersToolPage(options: {
  headers?: string;
  answer?: HeaderAnalysis;
  error?: string;
}): string {
  const body = `<h1>Email header analysis</h1>
<form method="post" action="/tools/headers" class="tool">${problem(options.error)}
<label for="headers">Message headers (or the whole message; the body is ignored)</label>
<textarea id="headers" name="headers" rows="12" required spellcheck="false"${describedBy(options.error)}>${esc(options.headers)}</textarea>
<button type="submit">Analyze</button></form>
${options.answer ? headersAnswerHtml(options.answer) : ''}`;
  return page('Email header analysis', body);
}

/** A page for a request the framework refused before a tool saw it (too large, wrong type). */
export function toolErrorPage(message: string): string {
  return page(
    'Error',
    `<h1>That did not work</h1>${problem(message)}<p><a href="/">Back to the start page</a></p>`,
  );
}
