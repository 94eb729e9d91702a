/**
 * The IP lookup page (`/tools/ip?ip=`): the anonymous extended answer (GET /v1/public/ip/{ip})
 * drawn as HTML, severity first (issue 36 item 4): the threat level as a coloured badge that also
 * says it in words, the warning signs (Tor exit, open proxy, DROP and UCEPROTECT listings, RPKI
 * invalid) apart from neutral facts such as "Datacenter: yes", RPKI and the country sources
 * explained in plain words, and a bogon's page saying why it has no network data.
 */
import { type IpAnswerExtended, THREAT_REASON } from '../intel/index.ts';
import type { ScanAnswer } from '../scan/index.ts';
import { describedBy, esc, facts, page, problem } from './html.ts';

/** Page-specific styles. Every colour pair holds WCAG AA contrast (4.5:1) for its text. */
const STYLE = `<style>
.verdict{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center}.verdict p{margin:0}
.level{display:inline-block;border-radius:6px;padding:.2rem .7rem;font-weight:700;font-size:1.1rem;border:2px solid}
.level-critical{background:#7a0e0e;color:#fff;border-color:#7a0e0e}.level-high{background:#c2410c;color:#fff;border-color:#c2410c}
.level-medium{background:#fff1b8;color:#4d3800;border-color:#8a6500}.level-low{background:#e8f0fb;color:#12263a;border-color:#5b7fa6}
.level-none{background:#e6f4ea;color:#0f5323;border-color:#2e7d32}
ul.signs{list-style:none;padding:0;margin:.4rem 0;display:grid;gap:.4rem}ul.signs li{border-left:5px solid;border-radius:4px;padding:.35rem .6rem}
ul.signs li.danger{background:#fde8e8;border-color:#b42318;color:#5c0f0a}ul.signs li.warning{background:#fff4d6;border-color:#a86b00;color:#4d3800}
ul.signs li.clear{background:#e6f4ea;border-color:#2e7d32;color:#0f5323}ul.signs strong{margin-right:.3rem}
</style>`;

const yesNo = (v: boolean | undefined) => (v ? 'yes' : 'no');

const LEVEL_WORDS: Record<string, [string, string]> = {
  critical: ['Critical', 'strong evidence of abuse: block or challenge traffic from this address'],
  high: ['High', 'serious signs of abuse: treat traffic from this address with suspicion'],
  medium: ['Medium', 'some signs of risk: worth a second look'],
  low: ['Low', 'minor signals only (for example a hosting network)'],
  none: ['None', 'nothing raised the score'],
};

function threatHtml(a: IpAnswerExtended): string {
  const level = a.threat.score === 0 ? 'none' : a.threat.level;
  const [word, meaning] = LEVEL_WORDS[level] ?? [level, ''];
  const reasons =
    a.threat.explanation.length > 0
      ? `<ul>${a.threat.explanation.map((e) => `<li>${esc(e)}</li>`).join('')}</ul>`
      : '';
  return `<section aria-labelledby="threat-h"><h2 id="threat-h">Threat</h2><div class="verdict">
<span class="level level-${esc(level)}">Threat level: ${esc(word)}</span><p><strong>${esc(a.threat.score)}</strong>/100: ${esc(meaning)}.</p></div>${reasons}</section>`;
}

type Sign = ['danger' | 'warning', string, string];

/** The warning signs that apply, most serious first. */
function warningSigns(a: IpAnswerExtended): Sign[] {
  const n = a.netrep;
  const r = a.asn_reputation;
  const signs: Sign[] = [];
  // The threat lines of CONTRACT §6 that no flag carries, in intel's own wording (THREAT_REASON).
  const listing = a.threat.explanation.find((e) => e.includes(THREAT_REASON.listingPrefix));
  if (listing)
    signs.push([
      'danger',
      "On this instance's blocklist.",
      `${listing.replace(/^\+\d+ /, '')}: see the Blocklist tool.`,
    ]);
  if (a.threat.explanation.some((e) => e.includes(THREAT_REASON.trap)))
    signs.push(['danger', 'Spam trap hit.', 'It sent mail to a pristine spam trap in the last 30 days.']);
  if (n.is_tor_exit) signs.push(['danger', 'Tor exit node.', 'Traffic from it may come from any Tor user.']);
  if (n.is_proxy) {
    const how = a.proxy?.anonymity ? ` (${a.proxy.anonymity})` : '';
    signs.push([
      'danger',
      `Open proxy${how}.`,
      'Listed by public open-proxy lists: anyone can relay through it.',
    ]);
  }
  if (r?.provider_drop)
    signs.push([
      'danger',
      'On Spamhaus DROP.',
      'The network or its AS is hijacked or run by criminals: drop its traffic.',
    ]);
  if (r?.provider_edrop)
    signs.push(['danger', 'On Spamhaus EDROP.', 'Extended DROP: a network to refuse outright.']);
  if (r?.uce_level1)
    signs.push(['danger', 'On UCEPROTECT level 1.', 'This address itself sent spam to traps.']);
  if (r?.uce_level2)
    signs.push(['warning', 'On UCEPROTECT level 2.', 'Its network holds several spamming addresses.']);
  if (r?.uce_level3)
    signs.push(['warning', 'On UCEPROTECT level 3.', 'Its AS holds many spamming addresses.']);
  if (a.rpki_status === 'invalid')
    signs.push([
      'warning',
      'RPKI invalid.',
      'The announcing AS is not the one the prefix holder authorised (see RPKI).',
    ]);
  if (n.is_vpn) signs.push(['warning', 'VPN.', 'A commercial VPN exit: the real user is elsewhere.']);
  return signs;
}

function signsHtml(a: IpAnswerExtended): string {
  const signs = warningSigns(a);
  const items =
    signs.length > 0
      ? signs
          .map(
            ([kind, what, why]) =>
              `<li class="${kind}"><strong>${kind === 'danger' ? 'Danger' : 'Warning'}: ${esc(what)}</strong>${esc(why)}</li>`,
          )
          .join('')
      : '<li class="clear"><strong>No warning signs.</strong>Not a Tor exit, open proxy or VPN, and not on DROP, EDROP or UCEPROTECT.</li>';
  return `<section aria-labelledby="signs-h"><h2 id="signs-h">Warning signs</h2><ul class="signs">${items}</ul></section>`;
}

const RPKI_WORDS: Record<string, string> = {
  valid:
    'Valid: the AS announcing this network is the one the prefix holder authorised in a ROA (a signed route origin authorisation).',
  invalid:
    "Invalid: the announcing AS is not authorised by the prefix holder's ROA, or announces a longer prefix than the ROA allows: possible hijack or misconfiguration.",
  'not-found':
    'Not found: no ROA covers this network, so its route origin cannot be checked either way (common).',
};

function networkHtml(a: IpAnswerExtended): string {
  const n = a.netrep;
  return `<section aria-labelledby="net-h"><h2 id="net-h">Network</h2>${facts([
    ['Network', a.prefix],
    ['ASN', a.asn === null ? null : `AS${a.asn}${a.asn_name ? ` ${a.asn_name}` : ''}`],
    ['Organization', a.organization],
    ['Provider', a.provider],
    ['Registry', a.rir],
    ['Connection', a.connection_type],
    ['Datacenter or hosting', `${yesNo(n.is_datacenter)}${n.cloud_provider ? ` (${n.cloud_provider})` : ''}`],
    ['Residential', yesNo(n.is_residential)],
    ['Mobile', yesNo(n.is_mobile)],
    ['Crawler', a.crawler ? `${a.crawler.name} (${a.crawler.operator}, ${a.crawler.purpose})` : null],
    ['Host name', a.hostname],
  ])}<h3>RPKI</h3><p>${esc(a.rpki_status ? RPKI_WORDS[a.rpki_status] : 'Not checked: the dataset holds no ROAs.')}</p></section>`;
}

const SOURCE_WORDS: Record<string, string> = {
  'dbip-city': 'DB-IP city (where the address is used, estimated)',
  'geo-whois-asn-country': 'registry records (geo-whois-asn-country)',
  'asn-country': "the AS's country (asn-country)",
  geofeed: "the operator's own geofeed (RFC 8805)",
};

const countryText = (cc: string | null) => cc ?? 'no country';

/** Which source says which country, which one `country` uses and why, in words. */
function consensusHtml(a: IpAnswerExtended): string {
  const c = a.geo_consensus;
  if (!c || c.providers.length === 0) return '';
  const says = c.providers
    .map(
      (p) =>
        `<li>${esc(SOURCE_WORDS[p.provider] ?? p.provider)}: <strong>${esc(countryText(p.country))}</strong></li>`,
    )
    .join('');
  const same = c.providers.filter((p) => p.country === c.primary_country).length;
  const from = a.provenance?.country?.sources.join(', ');
  const why = `The answer's country, <strong>${esc(countryText(a.country))}</strong>, is the country the network is registered to: the narrowest of the operator's geofeed, the registry's delegation records and geo-whois-asn-country${from ? ` (here: ${esc(from)})` : ''}. DB-IP estimates where the address is used, so the two can differ without either being wrong.`;
  return `<h3>Where the sources place it</h3><p>${esc(same)} of ${esc(c.providers.length)} sources say ${esc(countryText(c.primary_country))}.</p><ul>${says}</ul><p>${why}</p>`;
}

function geoHtml(a: IpAnswerExtended): string {
  const g = a.geolocation;
  const place = g
    ? facts([
        ['City', g.city],
        ['Region', g.region],
        ['Country (DB-IP)', g.country_name ? `${g.country_name} (${g.country_code ?? '?'})` : g.country_code],
        ['Postal code', g.postal_code],
        ['Coordinates', g.latitude !== null && g.longitude !== null ? `${g.latitude}, ${g.longitude}` : null],
        ['Accuracy', g.accuracy_radius !== null ? `${g.accuracy_radius} km` : null],
        ['Time zone', g.timezone],
      ])
    : '<p class="muted">No geolocation for this address.</p>';
  return `<section aria-labelledby="geo-h"><h2 id="geo-h">Location</h2>${facts([['Country (answer)', a.country]])}${place}${consensusHtml(a)}
<p class="muted"><a href="https://db-ip.com">IP Geolocation by DB-IP</a> (licensed under <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>).</p></section>`;
}

function bogonHtml(a: IpAnswerExtended): string {
  return `<section aria-labelledby="net-h"><h2 id="net-h">${esc(a.ip)} is not a public address</h2>
<p>It lies in ${esc(a.prefix)}, a special-purpose block (private, loopback, link-local, documentation, multicast or reserved space; RFC 6890). Such addresses are not routed on the public internet, so no network, owner, location, RPKI or reputation exists for them: this page has nothing more to show, and the API answers <code>bogon: true</code> with empty fields.</p></section>`;
}

/** The page's answer: the anonymous lookup's, with the service scan's part when there is one. */
type PageAnswer = IpAnswerExtended & Partial<ScanAnswer>;

const SCAN_WORDS: Record<string, string> = {
  pending: 'A scan of this address is queued; these are the previous results, if any.',
  failed: 'No port answered the last scan.',
  refused: 'This address is not scanned.',
};

/** The service scan's fields (issue #34), when scanning is on and something is known. */
function servicesHtml(a: PageAnswer): string {
  const s = a.scan;
  if (!s || s.status === 'disabled') return '';
  const known = [a.service_title, a.service_server, a.tls_organization].some((v) => v);
  if (!known && s.status !== 'failed') return '';
  const when = s.scanned_at ? ` Scanned ${esc(s.scanned_at.slice(0, 16).replace('T', ' '))} UTC.` : '';
  const note = SCAN_WORDS[s.status] ?? '';
  return `<section aria-labelledby="svc-h"><h2 id="svc-h">Services</h2>${facts([
    ['Web page title', a.service_title],
    ['Web server', a.service_server],
    ['TLS certificate organisation', a.tls_organization],
  ])}<p class="muted">${esc(note)}${when}</p></section>`;
}

function ipAnswerHtml(a: PageAnswer): string {
  if (a.bogon) return bogonHtml(a);
  return `<p class="muted">Results for <strong>${esc(a.ip)}</strong></p>${threatHtml(a)}${signsHtml(a)}${networkHtml(a)}${geoHtml(a)}${servicesHtml(a)}`;
}

export function ipToolPage(options: { ip?: string; answer?: PageAnswer; error?: string }): string {
  const body = `${STYLE}<h1>IP lookup</h1>
<form method="get" action="/tools/ip" class="tool">${problem(options.error)}
<label for="ip">IP address (IPv4 or IPv6)</label>
<input type="text" id="ip" name="ip" value="${esc(options.ip)}" required maxlength="100" autocomplete="off" spellcheck="false" inputmode="text"${describedBy(options.error)}>
<button type="submit">Look up</button></form>
${options.answer ? ipAnswerHtml(options.answer) : ''}`;
  return page(options.ip ? `IP lookup ${options.ip}` : 'IP lookup', body);
}
