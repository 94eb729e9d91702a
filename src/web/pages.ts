/** The dashboard pages (CONTRACT §3: Settings → API Keys; administrators also manage features and the blocklist). */
import type { ApiKeyInfo, UsageDay } from '../accounts/index.ts';
import type { DatasetStatus } from '../dataset/index.ts';
import { datasetSection } from './dataset-status.ts';
import { esc, page } from './html.ts';
import { usageChart } from './usage-chart.ts';

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
<p class="muted">The first administrator's one-time password is printed by <code>netrep serve</code> on its first start; you choose your own password when you first sign in with it.</p></section>`,
  );
}

export interface KeyRowView {
  info: ApiKeyInfo;
  usage: UsageDay[];
}

export function keysPage(options: {
  viewer: Viewer;
  keys: KeyRowView[];
  tiers: readonly string[];
  permissions: readonly string[];
  features: readonly string[];
  created?: { key: string; info: ApiKeyInfo };
  error?: string;
  notice?: string;
  /** What the serving dataset holds and how its updates went (shown below the keys). */
  dataset?: DatasetStatus;
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
      `<label class="check"><input type="checkbox" name="features" value="${esc(f)}"${info.features.includes(f) ? ' checked' : ''}> ${esc(f)}</label>`,
  )
  .join('')}<button type="submit" class="secondary">Save features</button></form>`
          : esc(info.features.join(', ') || '—');
      const when = (iso: string | null, none: string) => esc(iso ? iso.slice(0, 16).replace('T', ' ') : none);
      return `<tr data-key-id="${info.id}"><td data-label="Key"><strong>${esc(info.name)}</strong><br><code>${esc(info.prefix)}…</code>${
        admin ? `<br><span class="muted">${esc(info.owner_email)}</span>` : ''
      }</td><td data-label="Tier">${esc(info.tier)}</td><td data-label="Permissions" class="muted">${esc(info.permissions.join(', ') || '—')}</td><td data-label="Features">${featureForm}</td>
<td data-label="Created (UTC)" class="muted">${when(info.created_at, '')}</td><td data-label="Last used (UTC)" class="muted">${when(info.last_used_at, 'never')}</td>
<td data-label="Usage, 30 days" class="usage">${usageChart(usage, { id: `usage-${info.id}`, label: `Requests per day of key ${info.name}` })}</td>
<td data-label="Revoke"><a class="button danger" href="/dashboard/keys/${info.id}/revoke">Revoke<span class="visually-hidden"> key ${esc(info.name)}</span></a></td></tr>`;
    })
    .join('\n');
  const body = `<h1>Settings → API Keys</h1>
${options.error ? `<p class="error" role="alert">${esc(options.error)}</p>` : ''}
${options.notice ? `<p class="notice" role="status">${esc(options.notice)}</p>` : ''}
${created}
<section><h2>Create a key</h2><form method="post" action="/dashboard/keys">${csrf}
<label>Name <input type="text" name="name" maxlength="100" required></label>
<label>Rate-limit tier <select name="tier">${options.tiers.map((t) => `<option value="${esc(t)}">${esc(t)}</option>`).join('')}</select></label>
<fieldset><legend>Permissions</legend>${options.permissions
    .map(
      (p) =>
        `<label class="check"><input type="checkbox" name="permissions" value="${esc(p)}"> ${esc(p)}</label>`,
    )
    .join('')}</fieldset>
<div class="actions"><button type="submit">Create key</button></div></form></section>
<section><h2>${admin ? 'All active keys' : 'Your active keys'}</h2>
${keys.length === 0 ? '<p class="muted">No active keys.</p>' : `<table class="keys stack"><thead><tr><th scope="col">Key</th><th scope="col">Tier</th><th scope="col">Permissions</th><th scope="col">Features</th><th scope="col">Created (UTC)</th><th scope="col">Last used (UTC)</th><th scope="col">Usage, 30 days</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>`}
</section>
${options.dataset ? datasetSection(options.dataset) : ''}`;
  return page('API keys', body, { ...viewer, current: '/dashboard/keys' });
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
      ) => `<tr><td data-label="IP"><code>${esc(l.ip)}</code></td><td data-label="Type">${esc(l.type)}</td><td data-label="Reason">${esc(l.reason)}</td><td data-label="Code">${esc(l.return_code)}</td>
<td data-label="Listed (UTC)" class="muted">${esc(l.listed_at.slice(0, 16).replace('T', ' '))}</td><td data-label="Expires" class="muted">${esc(l.expires_at ? l.expires_at.slice(0, 16).replace('T', ' ') : 'permanent')}</td>
<td data-label="Delist"><form method="post" action="/dashboard/blocklist/delist">${csrf}<input type="hidden" name="ip" value="${esc(l.ip)}"><button class="danger" type="submit">Delist</button></form></td></tr>`,
    )
    .join('\n');
  const body = `<h1>Blocklist</h1>
${options.error ? `<p class="error" role="alert">${esc(options.error)}</p>` : ''}
${options.notice ? `<p class="notice" role="status">${esc(options.notice)}</p>` : ''}
<section><h2>List an address</h2><form method="post" action="/dashboard/blocklist/list">${csrf}
<label>IP address <input type="text" name="ip" required></label>
<label>Type <select name="type"><option>spam</option><option>malware</option><option>phishing</option></select></label>
<label>Reason <input type="text" name="reason" maxlength="200" required></label>
<label>Expires in days (empty: permanent) <input type="text" name="expires_days" inputmode="numeric"></label>
<button type="submit">List</button></form></section>
<section><h2>Active listings (newest 200)</h2>${options.listings.length === 0 ? '<p class="muted">Nothing is listed.</p>' : `<table class="stack"><thead><tr><th scope="col">IP</th><th scope="col">Type</th><th scope="col">Reason</th><th scope="col">Code</th><th scope="col">Listed (UTC)</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>`}</section>`;
  return page('Blocklist', body, { ...options.viewer, current: '/dashboard/blocklist' });
}

/** The step before a revoke: what will stop working, a Revoke button and a way back. */
export function revokeConfirmPage(options: { viewer: Viewer; key: ApiKeyInfo }): string {
  const k = options.key;
  const body = `<h1>Revoke key "${esc(k.name)}"?</h1>
<section><p>Requests with <code>${esc(k.prefix)}…</code> (${esc(k.tier)} tier, ${esc(k.permissions.join(', ') || 'no permissions')}) will be refused with 401 at once. This cannot be undone.</p>
<form method="post" action="/dashboard/keys/${k.id}/revoke"><input type="hidden" name="_csrf" value="${esc(options.viewer.csrf)}">
<div class="actions"><button class="danger" type="submit">Revoke key</button> <a href="/dashboard/keys">Cancel, keep the key</a></div></form></section>`;
  return page(`Revoke key ${k.name}`, body, { ...options.viewer, current: '/dashboard/keys' });
}

/** Change password; `forced` when the user still has a password they did not choose. */
export function passwordPage(options: { viewer: Viewer; forced: boolean; error?: string }): string {
  const body = `<section style="max-width:30rem"><h1>Change your password</h1>
${options.forced ? '<p role="status">You signed in with a one-time password. Choose your own password to continue.</p>' : ''}
${options.error ? `<p class="error" role="alert" id="pw-error">${esc(options.error)}</p>` : ''}
<form method="post" action="/dashboard/password"><input type="hidden" name="_csrf" value="${esc(options.viewer.csrf)}">
<label>Current password <input type="password" name="current" autocomplete="current-password" required></label>
<label>New password (at least 12 characters, not a common password) <input type="password" name="password" autocomplete="new-password" minlength="12" maxlength="200" required></label>
<label>New password again <input type="password" name="confirm" autocomplete="new-password" minlength="12" maxlength="200" required></label>
<button type="submit">Change password</button></form></section>`;
  return page('Change password', body, { ...options.viewer, current: '/dashboard/password' });
}

/** A dashboard request that could not be served now (the store out of reach): says to retry. */
export function unavailablePage(message: string): string {
  return page(
    'Unavailable',
    `<h1>Try again shortly</h1><p class="error" role="alert">${esc(message)}</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
  );
}
