/**
 * The IP lookup page (`/tools/ip?ip=`): the anonymous extended answer (GET /v1/public/ip/{ip})
 * drawn as HTML.
 */
import type { IpAnswerExtended } from '../intel/index.ts';
import { describedBy, esc, facts, page, problem } from './html.ts';

const yesNo = (v: boolean) => (v ? 'yes' : 'no');

function list(items: readonly string[], empty: string): string {
  return items.length === 0
    ? `<p class="muted">${esc(empty)}</p>`
    : `<ul>${items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>`;
}

const FLAG_NAMES: [keyof IpAnswerExtended['netrep'], string][] = [
  ['is_datacenter', 'Datacenter or hosting'],
  ['is_vpn', 'VPN'],
  ['is_proxy', 'Public proxy'],
  ['is_tor_exit', 'Tor exit'],
  ['is_residential', 'Residential'],
  ['is_mobile', 'Mobile'],
  ['is_ai_crawler', 'AI crawler'],
];

function geoHtml(a: IpAnswerExtended): { geo: string; consensus: string } {
  const g = a.geolocation;
  const geo = g
    ? facts([
        ['City', g.city],
        ['Region', g.region],
        ['Country', g.country_name ? `${g.country_name} (${g.country_code ?? '?'})` : g.country_code],
        ['Postal code', g.postal_code],
        ['Coordinates', g.latitude !== null && g.longitude !== null ? `${g.latitude}, ${g.longitude}` : null],
        ['Accuracy', g.accuracy_radius !== null ? `${g.accuracy_radius} km` : null],
        ['Time zone', g.timezone],
      ])
    : '<p class="muted">No geolocation for this address.</p>';
  const consensus = a.geo_consensus
    ? `<p>Country sources agree ${esc(Math.round(a.geo_consensus.agreement * 100))} % on ${esc(a.geo_consensus.primary_country ?? 'no country')}: ${esc(
        a.geo_consensus.providers.map((p) => `${p.provider} ${p.country ?? '—'}`).join(', '),
      )}.</p>`
    : '';
  return { geo, consensus };
}

function ipAnswerHtml(a: IpAnswerExtended): string {
  const flags = FLAG_NAMES.map(
    ([key, label]) =>
      `<li class="${a.netrep[key] ? 'flag on' : 'flag'}">${esc(label)}: <strong>${yesNo(a.netrep[key] === true)}</strong></li>`,
  ).join('');
  const { geo, consensus } = geoHtml(a);
  return `<section aria-labelledby="net-h"><h2 id="net-h">${esc(a.ip)}</h2>${facts([
    ['Network', a.prefix],
    ['ASN', a.asn === null ? null : `AS${a.asn}${a.asn_name ? ` ${a.asn_name}` : ''}`],
    ['Organization', a.organization],
    ['Provider', a.provider],
    ['Country', a.country],
    ['Registry', a.rir],
    ['Connection', a.connection_type],
    ['Host name', a.hostname],
    ['RPKI', a.rpki_status],
    ['Bogon', yesNo(a.bogon)],
  ])}</section>
<section aria-labelledby="flags-h"><h2 id="flags-h">Flags</h2><ul class="flags">${flags}</ul>${
    a.netrep.cloud_provider ? `<p>Cloud provider: ${esc(a.netrep.cloud_provider)}</p>` : ''
  }${a.netrep.ai_company ? `<p>Crawler operator: ${esc(a.netrep.ai_company)}</p>` : ''}</section>
<section aria-labelledby="threat-h"><h2 id="threat-h">Threat</h2>
<p class="score level-${esc(a.threat.level)}"><strong>${esc(a.threat.score)}</strong>/100, ${esc(a.threat.level)}</p>
${list(a.threat.explanation, 'Nothing raised the score.')}</section>
<section aria-labelledby="geo-h"><h2 id="geo-h">Geolocation</h2>${geo}${consensus}
<p class="muted"><a href="https://db-ip.com">IP Geolocation by DB-IP</a> (licensed under <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>).</p></section>`;
}

export function ipToolPage(options: { ip?: string; answer?: IpAnswerExtended; error?: string }): string {
  const body = `<h1>IP lookup</h1>
<form method="get" action="/tools/ip" class="tool">${problem(options.error)}
<label for="ip">IP address (IPv4 or IPv6)</label>
<input type="text" id="ip" name="ip" value="${esc(options.ip)}" required maxlength="100" autocomplete="off" spellcheck="false" inputmode="text"${describedBy(options.error)}>
<button type="submit">Look up</button></form>
${options.answer ? ipAnswerHtml(options.answer) : ''}`;
  return page(options.ip ? `IP lookup ${options.ip}` : 'IP lookup', body);
}
