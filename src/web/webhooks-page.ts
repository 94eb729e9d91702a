/** Settings → Webhooks (CONTRACT §11): create with the secret shown once, delivery log, test ping, delete. */
import { esc, page } from './html.ts';

export interface WebhooksViewer {
  email: string;
  role: string;
  csrf: string;
}

export interface HookView {
  id: number;
  url: string;
  created_at: string;
  attempts: {
    event_id: string;
    attempt: number;
    status: string;
    response_code: number | null;
    error: string | null;
    attempted_at: string;
  }[];
}

const time = (iso: string) => iso.slice(0, 19).replace('T', ' ');

function hookRow(h: HookView, csrf: string): string {
  const log =
    h.attempts.length === 0
      ? '<p class="muted">No deliveries yet.</p>'
      : `<table><thead><tr><th>Attempted (UTC)</th><th>Event</th><th>#</th><th>Status</th><th>Code</th><th>Error</th></tr></thead><tbody>${h.attempts
          .map(
            (a) =>
              `<tr><td class="muted">${esc(time(a.attempted_at))}</td><td><code>${esc(a.event_id.slice(0, 8))}</code></td><td>${a.attempt}</td><td>${esc(a.status)}</td><td>${esc(a.response_code ?? '—')}</td><td class="muted">${esc(a.error ?? '')}</td></tr>`,
          )
          .join('')}</tbody></table>`;
  return `<section data-hook-id="${h.id}"><h2><code>${esc(h.url)}</code></h2>
<p class="muted">Created ${esc(time(h.created_at))} UTC · id ${h.id}</p>
<div class="actions"><form method="post" action="/dashboard/webhooks/${h.id}/test" class="inline">${csrf}<button type="submit" class="secondary">Send test ping</button></form>
<form method="post" action="/dashboard/webhooks/${h.id}/delete" class="inline">${csrf}<button class="danger" type="submit">Delete<span class="visually-hidden"> webhook ${esc(h.url)}</span></button></form></div>
<h3>Recent deliveries</h3>${log}</section>`;
}

export function webhooksPage(options: {
  viewer: WebhooksViewer;
  hooks: HookView[];
  created?: { url: string; secret: string };
  error?: string;
  notice?: string;
}): string {
  const csrf = `<input type="hidden" name="_csrf" value="${esc(options.viewer.csrf)}">`;
  const created = options.created
    ? `<section aria-live="polite"><h2>New webhook for <code>${esc(options.created.url)}</code></h2>
<p>Copy the signing secret now: it is shown only once. Verify <code>X-Netrep-Signature</code> with it.</p>
<p class="secret" id="new-secret">${esc(options.created.secret)}</p></section>`
    : '';
  const body = `<h1>Settings → Webhooks</h1>
${options.error ? `<p class="error" role="alert">${esc(options.error)}</p>` : ''}
${options.notice ? `<p class="notice" role="status">${esc(options.notice)}</p>` : ''}
${created}
<section><h2>Add a webhook</h2><form method="post" action="/dashboard/webhooks">${csrf}
<label>URL <input type="text" name="url" maxlength="2048" required placeholder="https://hooks.example.com/netrep"></label>
<label>Secret (empty: a random one) <input type="text" name="secret" maxlength="256" autocomplete="off"></label>
<div class="actions"><button type="submit">Create webhook</button></div></form>
<p class="muted">Events: <code>saved_ip</code> (listing, delisting, threat level or flags after a dataset update of an address on your <a href="/dashboard/saved-ips">Saved IPs</a> page), <code>email_pool</code> (pool graduations) and <code>email_domain</code> (a new sending source, or the DMARC pass rate crossing the threshold, in your DMARC aggregate reports). Loopback and private targets are refused.</p></section>
${options.hooks.map((h) => hookRow(h, csrf)).join('\n')}`;
  return page('Webhooks', body, { ...options.viewer, current: '/dashboard/webhooks' });
}
