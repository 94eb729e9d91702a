/**
 * The blocklist tool page (`/tools/blocklist?ip=`): this instance's own zone and every public
 * DNSBL of NETREP_DNSBL_CHECK_ZONES for one address, each with its answer, the list's reason and
 * its delisting page. Every value is escaped with `esc`; the answer is the API's
 * `GET /v1/public/blocklists/ip/{ip}` shape.
 */
import { TEST_ENTRY_REASON } from '../blocklist/index.ts';
import type { BlocklistsAnswer, ZoneAnswer } from '../listcheck/index.ts';
import { describedBy, esc, facts, page, problem } from './html.ts';

const STATUS_WORDS: Record<ZoneAnswer['status'], string> = {
  listed: 'Listed',
  not_listed: 'Not listed',
  refused: 'Refused the query',
  unavailable: 'No answer',
  not_checked: 'Not checked',
};

function ownZoneHtml(a: BlocklistsAnswer['netrep']): string {
  const l = a.listing;
  // The RFC 5782 test entry is listed for ever; it has no listing time to show.
  const testEntry = l?.reason === TEST_ENTRY_REASON && Date.parse(l.listed_at) === 0;
  const verdict = l
    ? `<p class="listed status-listed"><strong>Listed</strong> for ${esc(l.type)}.</p>${facts([
        ['Reason', l.reason],
        ['DNS answer', l.return_code],
        ['Listed since', testEntry ? 'permanent test entry (RFC 5782)' : l.listed_at],
        ['Expires', l.expires_at ?? 'never (permanent)'],
      ])}`
    : '<p class="clean status-not_listed"><strong>Not listed.</strong></p>';
  return `<section aria-labelledby="own-h"><h2 id="own-h">This instance’s list <code>${esc(a.zone)}</code></h2>${verdict}</section>`;
}

function zoneRow(z: ZoneAnswer): string {
  const notes = [
    z.return_codes.length > 0 ? `Answer ${z.return_codes.join(', ')}` : '',
    z.reason ?? '',
    z.detail ?? '',
    z.cached ? `Answer from ${z.checked_at.slice(11, 16)} UTC (kept)` : '',
  ].filter((n) => n !== '');
  const delist = z.delist_url
    ? `<a href="${esc(z.delist_url)}" rel="noopener noreferrer">Lookup and removal<span class="visually-hidden"> at ${esc(z.name)}</span></a>`
    : '—';
  return `<tr data-zone="${esc(z.zone)}"><td data-label="List"><strong>${esc(z.name)}</strong>${z.name === z.zone ? '' : `<br><code>${esc(z.zone)}</code>`}</td>
<td data-label="Result" class="status-${esc(z.status)}">${esc(STATUS_WORDS[z.status])}</td>
<td data-label="Details">${notes.length === 0 ? '—' : notes.map((n) => `<p class="note">${esc(n)}</p>`).join('')}</td>
<td data-label="Delisting">${delist}</td></tr>`;
}

function publicListsHtml(a: BlocklistsAnswer): string {
  if (a.zones.length === 0) {
    return '<section aria-labelledby="pub-h"><h2 id="pub-h">Public lists</h2><p class="muted">No public lists are configured on this instance (NETREP_DNSBL_CHECK_ZONES).</p></section>';
  }
  const s = a.summary;
  const asked = a.zones.length - s.not_checked;
  const silent = s.refused + s.unavailable;
  const headline =
    s.listed > 0
      ? `<p class="status-listed"><strong>Listed on ${s.listed} of ${asked} public lists.</strong></p>`
      : s.not_listed > 0
        ? `<p class="status-not_listed"><strong>Not listed on any of the ${s.not_listed} public lists that answered</strong>${
            silent > 0 ? `; ${silent} gave no verdict` : ''
          }.</p>`
        : `<p><strong>No public list gave a verdict</strong> (${s.refused} refused the query, ${s.unavailable} did not answer).</p>`;
  return `<section aria-labelledby="pub-h"><h2 id="pub-h">Public lists</h2>${headline}
<table class="stack zones"><thead><tr><th scope="col">List</th><th scope="col">Result</th><th scope="col">Details</th><th scope="col">Delisting</th></tr></thead><tbody>${a.zones
    .map(zoneRow)
    .join('\n')}</tbody></table>
<p class="muted">Each list is asked after its RFC 5782 test points (127.0.0.2 listed, 127.0.0.1 not). “Refused the query” is no verdict: some lists refuse queries that reach them through large public resolvers or in great numbers, and the operator of this instance can point NETREP_DNS_SERVERS at a resolver of their own. “No answer”: the list did not answer in time, or failed its test points.</p></section>`;
}

export function blocklistToolPage(options: {
  ip?: string;
  answer?: BlocklistsAnswer;
  error?: string;
}): string {
  const a = options.answer;
  const body = `<h1>Blocklist check</h1>
<p>Is an address on this instance’s blocklist and on the public DNS blocklists mail servers consult, and where to ask for removal.</p>
<form method="get" action="/tools/blocklist" class="tool">${problem(options.error)}
<label for="ip">IP address (IPv4 or IPv6)</label>
<input type="text" id="ip" name="ip" value="${esc(options.ip)}" required maxlength="100" autocomplete="off" spellcheck="false"${describedBy(options.error)}>
<button type="submit">Check</button></form>
${a ? `<p class="answer-ip">Results for <strong>${esc(a.ip)}</strong></p>${ownZoneHtml(a.netrep)}${publicListsHtml(a)}` : ''}`;
  return page(
    options.ip ? `Blocklist check ${options.ip}` : 'Blocklist check',
    body,
    undefined,
    '/tools/blocklist',
  );
}
