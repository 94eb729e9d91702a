/**
 * Settings → Saved IPs (CONTRACT §11): the addresses the signed-in user watches, each with its
 * blocklist state and threat level now; a change of either after a dataset update is a
 * `saved_ip` event for the user's webhooks.
 */
import { esc, page } from './html.ts';
import type { Viewer } from './pages.ts';

export interface SavedIpView {
  ip: string;
  label: string | null;
  created_at: string;
  listed: string | null;
  threat_level: string | null;
}

const time = (iso: string) => iso.slice(0, 16).replace('T', ' ');

export function savedIpsPage(options: {
  viewer: Viewer;
  savedIps: SavedIpView[];
  /** How many addresses the user's highest key tier may save. */
  cap: number;
  error?: string;
  notice?: string;
}): string {
  const csrf = `<input type="hidden" name="_csrf" value="${esc(options.viewer.csrf)}">`;
  const rows = options.savedIps
    .map(
      (s) =>
        `<tr><td data-label="IP"><a href="/tools/ip?ip=${encodeURIComponent(s.ip)}"><code>${esc(s.ip)}</code></a></td><td data-label="Label">${esc(s.label ?? '—')}</td><td data-label="Blocklist">${esc(s.listed ?? 'not listed')}</td><td data-label="Threat level">${esc(s.threat_level ?? '—')}</td><td data-label="Saved (UTC)" class="muted">${esc(time(s.created_at))}</td>
<td data-label="Remove"><form method="post" action="/dashboard/saved-ips/remove" class="inline">${csrf}<input type="hidden" name="ip" value="${esc(s.ip)}"><button class="danger" type="submit">Remove<span class="visually-hidden"> ${esc(s.ip)}</span></button></form></td></tr>`,
    )
    .join('\n');
  const body = `<h1>Settings → Saved IPs</h1>
${options.error ? `<p class="error" role="alert">${esc(options.error)}</p>` : ''}
${options.notice ? `<p class="notice" role="status">${esc(options.notice)}</p>` : ''}
<p>Watch addresses: when one is listed or delisted, or a dataset update changes its threat level or flags, your <a href="/dashboard/webhooks">webhooks</a> receive a <code>saved_ip</code> event.</p>
<section><h2>Watch an address</h2><form method="post" action="/dashboard/saved-ips">${csrf}
<label>IP address <input type="text" name="ip" required maxlength="100" autocomplete="off" spellcheck="false"></label>
<label>Label (optional) <input type="text" name="label" maxlength="100"></label>
<div class="actions"><button type="submit">Save address</button></div></form></section>
<section><h2>Saved addresses (${options.savedIps.length} of ${options.cap})</h2>${
    options.savedIps.length === 0
      ? '<p class="muted">No saved addresses yet.</p>'
      : `<table class="stack"><thead><tr><th scope="col">IP</th><th scope="col">Label</th><th scope="col">Blocklist</th><th scope="col">Threat level</th><th scope="col">Saved (UTC)</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>`
  }</section>`;
  return page('Saved IPs', body, { ...options.viewer, current: '/dashboard/saved-ips' });
}
