/**
 * `/feeds`: what the threat feeds are and how a program downloads them with a key (the home
 * page's "threat feeds" link lands here, not on the keyed JSON catalog).
 */
import { FEED_FORMATS, FEED_NAMES, feedDefinition } from '../feeds/index.ts';
import { esc, page } from './html.ts';

export function feedsPage(options: { baseUrl: string }): string {
  const rows = FEED_NAMES.map((name) => {
    const f = feedDefinition(name);
    return `<tr><td data-label="Feed"><strong>${esc(f.title)}</strong><br><code>${esc(f.name)}</code></td><td data-label="Tier">${f.tier === 'premium' ? 'premium (pro and enterprise keys)' : 'free (every key)'}</td><td data-label="What it holds">${esc(f.description)}</td></tr>`;
  }).join('\n');
  const base = esc(options.baseUrl);
  const body = `<h1>Threat feeds</h1>
<p>Daily lists of addresses and networks (Tor exits, AI crawlers, VPN and proxy egress, datacenter ranges, and two premium lists) to load into a firewall, a web server or a mail filter. Programs download them with an API key; there is no page to read them in a browser.</p>
<section aria-labelledby="get-h"><h2 id="get-h">How to download one</h2><ol>
<li><a href="/dashboard">Sign in to the dashboard</a> and create an API key under <a href="/dashboard/keys">API keys</a> (it is shown once; a free-tier key gets the free feeds, a pro or enterprise key the premium ones too).</li>
<li>List the feeds your key may download, with the newest snapshot of each:<br><code class="record">curl -H 'X-API-Key: YOUR_KEY' ${base}/v1/feeds</code></li>
<li>Download one in the format your tool reads (${FEED_FORMATS.map((f) => `<code>${f}</code>`).join(', ')}):<br><code class="record">curl -H 'X-API-Key: YOUR_KEY' -o tor_exits.txt ${base}/v1/feeds/tor_exits/download/plain</code></li></ol>
<p>Without a key, <code>/v1/feeds</code> answers 401. The <a href="/docs/feeds">API docs</a> describe the catalog, the manifests and every format.</p></section>
<section aria-labelledby="list-h"><h2 id="list-h">The feeds</h2><table class="stack"><thead><tr><th scope="col">Feed</th><th scope="col">Tier</th><th scope="col">What it holds</th></tr></thead><tbody>${rows}</tbody></table></section>`;
  return page('Threat feeds', body);
}
