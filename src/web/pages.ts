/** The dashboard pages (CONTRACT §3: Settings → API Keys; administrators also manage features and the blocklist). */
import type { ApiKeyInfo, UsageDay } from '../accounts/index.ts';
import { esc, page } from './html.ts';

export interface Viewer {
  email: string;
  role: string;
  csrf: string;
}

export function loginPage(error?: string): string {
  return page(
    'Sign in',
    `<section style="max-width:26rem;margin:3rem auto"><h1>Sign in</h1>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/dashboard/login">
<label>Email <input type="email" name="email" autocomplete="username" required></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form>
<p class="muted">The first administrator's one-time password is printed by <code>netrep serve</code> on its first start.</p></section>`,
  );
}

export interface KeyRowView {
  info: ApiKeyInfo;
  usage: UsageDay[];
}

function usageBars(usage: UsageDay[]): string {
  const max = Math.max(1, ...usage.map((u) => u.requests));
  const bars = usage
    .map(
      (u) =>
        `<span title="${esc(u.day)}: ${u.requests}" style="height:${Math.round((u.requests / max) * 100)}%"></span>`,
    )
    .join('');
  const total = usage.reduce((a, u) => a + u.requests, 0);
  return `<div class="bars" aria-label="requests per day, last 30 days">${bars}</div><span class="muted">${total.toLocaleString('en')} in 30 days</span>`;
}

export function keysPage(options: {
  viewer: Viewer;
  keys: KeyRowView[];
  tiers: readonly string[];
  permissions: readonly string[];
  features: readonly string[];
  created?: { key: string; info: ApiKeyInfo };
  error?: string;
}): string {
  const { viewer, keys } = options;
  const admin = viewer.role === 'admin';
  const csrf = `<input type="hidden" name="_csrf" value="${esc(viewer.csrf)}">`;
  const created = options.created
    ? `<section aria-live="polite"><h2>New key "${esc(options.created.info.name)}"</h2>
<p>Copy it now: it is shown only once and cannot be recovered.</p>
<p class="secret" id="new-key">${esc(options.created.key)}</p></section>`
    : '';
  const rows = keys
    .map(({ info, usage }) => {
      const featureForm =
        admin && options.features.length > 0
          ? `<form method="post" action="/dashboard/keys/${info.id}/features">${csrf}
${options.features
  .map(
    (f) =>
      `<label class="muted"><input type="checkbox" name="features" value="${esc(f)}"${info.features.includes(f) ? ' checked' : ''}> ${esc(f)}</label>`,
  )
  .join('')}<button type="submit">Save features</button></form>`
          : esc(info.features.join(', ') || '—');
      return `<tr data-key-id="${info.id}"><td><strong>${esc(info.name)}</strong><br><code>${esc(info.prefix)}…</code>${
        admin ? `<br><span class="muted">${esc(info.owner_email)}</span>` : ''
      }</td><td>${esc(info.tier)}</td><td class="muted">${esc(info.permissions.join(', '))}</td><td>${featureForm}</td>
<td class="muted">${esc(info.created_at.slice(0, 16).replace('T', ' '))}</td><td class="muted">${esc(info.last_used_at ? info.last_used_at.slice(0, 16).replace('T', ' ') : 'never')}</td>
<td>${usageBars(usage)}</td>
<td><form method="post" action="/dashboard/keys/${info.id}/revoke" onsubmit="return confirm('Revoke this key? This cannot be undone.')">${csrf}<button class="danger" type="submit">Revoke</button></form></td></tr>`;
    })
    .join('\n');
  const body = `<h1>Settings → API Keys</h1>
${options.error ? `<p class="error" role="alert">${esc(options.error)}</p>` : ''}
${created}
<section><h2>Create a key</h2><form method="post" action="/dashboard/keys">${csrf}
<label>Name <input type="text" name="name" maxlength="100" required></label>
<label>Rate-limit tier <select name="tier">${options.tiers.map((t) => `<option value="${esc(t)}">${esc(t)}</option>`).join('')}</select></label>
<fieldset><legend>Permissions</legend>${options.permissions
    .map((p) => `<label><input type="checkbox" name="permissions" value="${esc(p)}"> ${esc(p)}</label>`)
    .join('')}</fieldset>
<p><button type="submit">Create key</button></p></form></section>
<section><h2>${admin ? 'All active keys' : 'Your active keys'}</h2>
${keys.length === 0 ? '<p class="muted">No active keys.</p>' : `<table><thead><tr><th>Key</th><th>Tier</th><th>Permissions</th><th>Features</th><th>Created (UTC)</th><th>Last used (UTC)</th><th>Usage</th><th></th></tr></thead><tbody>${rows}</tbody></table>`}
</section>`;
  return page('API keys', body, viewer);
}

export interface ListingView {
  ip: string;
  type: string;
  reason: string;
  return_code: string;
  listed_at: string;
  expires_at: string | null;
}

export function blocklistPage(options: {
  viewer: Viewer;
  listings: ListingView[];
  error?: string;
  notice?: string;
}): string {
  const csrf = `<input type="hidden" name="_csrf" value="${esc(options.viewer.csrf)}">`;
  const rows = options.listings
    .map(
      (
        l,
      ) => `<tr><td><code>${esc(l.ip)}</code></td><td>${esc(l.type)}</td><td>${esc(l.reason)}</td><td>${esc(l.return_code)}</td>
<td class="muted">${esc(l.listed_at.slice(0, 16).replace('T', ' '))}</td><td class="muted">${esc(l.expires_at ? l.expires_at.slice(0, 16).replace('T', ' ') : 'permanent')}</td>
<td><form method="post" action="/dashboard/blocklist/delist">${csrf}<input type="hidden" name="ip" value="${esc(l.ip)}"><button class="danger" type="submit">Delist</button></form></td></tr>`,
    )
    .join('\n');
  const body = `<h1>Blocklist</h1>
${options.error ? `<p class="error" role="alert">${esc(options.error)}</p>` : ''}
${options.notice ? `<p class="secret" role="status">${esc(options.notice)}</p>` : ''}
<section><h2>List an address</h2><form method="post" action="/dashboard/blocklist/list">${csrf}
<label>IP address <input type="text" name="ip" required></label>
<label>Type <select name="type"><option>spam</option><option>malware</option><option>phishing</option></select></label>
<label>Reason <input type="text" name="reason" maxlength="200" required></label>
<label>Expires in days (empty: permanent) <input type="text" name="expires_days" inputmode="numeric"></label>
<button type="submit">List</button></form></section>
<section><h2>Active listings (newest 200)</h2>${options.listings.length === 0 ? '<p class="muted">Nothing is listed.</p>' : `<table><thead><tr><th>IP</th><th>Type</th><th>Reason</th><th>Code</th><th>Listed (UTC)</th><th>Expires</th><th></th></tr></thead><tbody>${rows}</tbody></table>`}</section>`;
  return page('Blocklist', body, options.viewer);
}
