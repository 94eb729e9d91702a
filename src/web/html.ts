/** Escaping and the page frame for the server-rendered dashboard (no client-side code needed). */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const STYLE = `
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{background:#12263a;color:#fff;padding:.7rem 1.5rem;display:flex;gap:1.5rem;align-items:center}
header a{color:#cfe3ff;text-decoration:none}header strong{font-size:1.1rem;margin-right:auto}header a[aria-current=page]{color:#fff;text-decoration:underline;text-underline-offset:.3em}
header .who{color:#cfd8e3;font-size:.85rem}header form{margin:0}header button.secondary{background:transparent;color:#fff;border-color:#cfe3ff}
main{max-width:1100px;margin:1.5rem auto;padding:0 1.5rem}
section{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:1rem 1.25rem;margin-bottom:1.25rem}
h1{font-size:1.4rem;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:.2rem 0 .8rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid #eceff3;vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;color:#5a6470;letter-spacing:.03em}
code{background:#eef1f5;padding:.1rem .3rem;border-radius:4px}
.secret{font:600 1rem ui-monospace,monospace;background:#fff8d6;border:1px solid #e6c200;padding:.6rem;border-radius:6px;word-break:break-all}
.error{background:#fde8e8;border:1px solid #e0a3a3;padding:.6rem;border-radius:6px}
.muted{color:#57606a;font-size:.85rem}
input,select,textarea,button{font:inherit}
label{display:block;margin:0 0 .9rem;font-weight:600}label>input:not([type=checkbox]),label>select,label>textarea{display:block;margin-top:.3rem;font-weight:400}
input[type=text],input[type=email],input[type=password],input[type=number],select,textarea{padding:.45rem .6rem;border:1px solid #8c959f;border-radius:5px;width:24rem;max-width:100%;box-sizing:border-box;background:#fff;color:inherit}
label.check{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:0 0 .4rem}
fieldset{border:1px solid #dde1e6;border-radius:6px;margin:0 0 .9rem;padding:.5rem .9rem}legend{font-weight:600;padding:0 .3rem}
button{background:#1f6feb;color:#fff;border:1px solid #1f6feb;border-radius:5px;padding:.45rem .9rem;cursor:pointer;line-height:1.3}
button.secondary{background:#fff;color:#0b57c2;border-color:#8c959f}button.danger{background:#c62828;border-color:#c62828}
.actions{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;margin:.2rem 0 0}form.inline{display:inline-block;margin:0 .4rem .4rem 0}
.bars{display:flex;gap:1px;align-items:flex-end;height:28px}.bars span{display:block;width:4px;background:#1f6feb;min-height:1px}
header nav{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;align-items:center}header{flex-wrap:wrap}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:.5rem;background:#fff;color:#12263a;padding:.3rem .6rem;z-index:9}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #f0a000;outline-offset:2px}
a{color:#0b57c2}
.tool{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:1rem 1.25rem;margin-bottom:1.25rem;display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
.tool label{flex-basis:100%;margin:0;font-weight:600}.tool input{flex:1 1 14rem;min-width:0;width:auto}.tool textarea{flex-basis:100%;box-sizing:border-box;width:100%;font:13px/1.4 ui-monospace,monospace;padding:.4rem;border:1px solid #c4cad1;border-radius:5px}
.tool .error{flex-basis:100%;margin:0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}dl.facts dt{color:#5a6470}dl.facts dd{margin:0;overflow-wrap:anywhere}
ul.cards{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fit,minmax(15rem,1fr));gap:.8rem}ul.cards li{border:1px solid #dde1e6;border-radius:6px;padding:.7rem}
ul.flags{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.4rem}ul.flags li{border:1px solid #c4cad1;border-radius:12px;padding:.1rem .6rem}ul.flags li.on{background:#fff2cc;border-color:#b38600}
.grade{display:flex;gap:1rem;align-items:center;font-size:1.2rem}.grade .letter{font-size:2.6rem;font-weight:700;border:3px solid currentColor;border-radius:8px;padding:0 .8rem}
.grade-A,.grade-B{color:#116329}.grade-C{color:#7a5a00}.grade-D,.grade-F{color:#b42318}
ol.timeline{padding-left:1.4rem}ol.timeline li{border-left:3px solid #1f6feb;padding:.1rem .8rem;margin-bottom:.6rem}ol.timeline p{margin:.15rem 0;overflow-wrap:anywhere}.delay{background:#eef1f5;border-radius:4px;padding:0 .3rem}
code.record{display:block;white-space:pre-wrap;overflow-wrap:anywhere;padding:.4rem}
a.button{display:inline-block;background:#1f6feb;color:#fff;border-radius:5px;padding:.45rem .9rem;text-decoration:none}a.button.danger{background:#c62828}
.status-listed{color:#b42318;font-weight:600}.status-not_listed{color:#116329}.status-refused,.status-unavailable,.status-not_checked{color:#57606a}p.note{margin:0 0 .2rem;overflow-wrap:anywhere}ol.events li{overflow-wrap:anywhere}
.notice{background:#e6f4ea;border:1px solid #8cc59a;padding:.6rem;border-radius:6px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.chart{margin:0;min-width:14rem;max-width:20rem}.chart svg{width:100%;height:auto;display:block}.chart text{font-size:11px;fill:#4a535c}.chart .axis{stroke:#4a535c}.chart .grid{stroke:#e3e6ea}.chart .bars rect{fill:#1f6feb}
@media (max-width:800px){table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:auto}
table.stack tr{border:1px solid #dde1e6;border-radius:6px;margin-bottom:.8rem;padding:.3rem .6rem}table.stack td{border:0;padding:.3rem 0;overflow-wrap:anywhere}
table.stack td::before{content:attr(data-label);display:block;font-size:.75rem;text-transform:uppercase;color:#5a6470}.chart{max-width:none}}
@media (max-width:600px){main{padding:0 .75rem;margin:1rem auto}header{padding:.6rem .75rem}section{padding:.8rem}input[type=text],input[type=email],input[type=password],input[type=number],select{width:100%}dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:.4rem}}
`;

/** The signed-in menu: every dashboard page (the administrators' two only for them). */
const DASHBOARD_MENU: readonly { href: string; name: string; admin?: boolean }[] = [
  { href: '/dashboard/keys', name: 'API keys' },
  { href: '/dashboard/saved-ips', name: 'Saved IPs' },
  { href: '/dashboard/webhooks', name: 'Webhooks' },
  { href: '/dashboard/audit', name: 'Audit jobs' },
  { href: '/dashboard/reports', name: 'Reports' },
  { href: '/dashboard/blocklist', name: 'Blocklist', admin: true },
  { href: '/dashboard/users', name: 'Users', admin: true },
  { href: '/dashboard/password', name: 'Password' },
  { href: '/', name: 'Tools' },
  { href: '/docs', name: 'API docs' },
];

const PUBLIC_MENU: readonly { href: string; name: string }[] = [
  { href: '/tools/ip', name: 'IP lookup' },
  { href: '/tools/domain', name: 'Domain check' },
  { href: '/tools/headers', name: 'Header analysis' },
  { href: '/tools/blocklist', name: 'Blocklist' },
  { href: '/dashboard', name: 'Dashboard' },
  { href: '/docs', name: 'API docs' },
];

const menuLink = (l: { href: string; name: string }, current: string | undefined) =>
  `<a href="${l.href}"${l.href === current ? ' aria-current="page"' : ''}>${esc(l.name)}</a>`;

/**
 * A whole page: the header with the menu (the dashboard's when `nav` names a signed-in user, with
 * `current` marked), then `body`. `current` is the path of the page, as the menu writes it.
 */
export function page(
  title: string,
  body: string,
  nav?: { email: string; role: string; csrf: string; current?: string },
  current?: string,
): string {
  const here = nav?.current ?? current;
  const header = nav
    ? `<header><strong><a href="/dashboard" style="color:#fff">netrep</a></strong><nav aria-label="Dashboard">${DASHBOARD_MENU.filter(
        (l) => !l.admin || nav.role === 'admin',
      )
        .map((l) => menuLink(l, here))
        .join('')}</nav><span class="who">${esc(nav.email)} (${esc(nav.role)})</span>
<form method="post" action="/dashboard/logout"><input type="hidden" name="_csrf" value="${esc(nav.csrf)}"><button type="submit" class="secondary">Sign out</button></form></header>`
    : `<header><strong><a href="/" style="color:#fff">netrep</a></strong><nav aria-label="Main">${PUBLIC_MENU.map(
        (l) => menuLink(l, here),
      ).join('')}</nav></header>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · netrep</title><style>${STYLE}</style></head><body><a class="skip" href="#main">Skip to content</a>${header}<main id="main">${body}</main></body></html>`;
}

/** A message above the form: the problem with the input (role=alert) or nothing. */
export function problem(error: string | undefined): string {
  return error ? `<p class="error" role="alert" id="form-error">${esc(error)}</p>` : '';
}

/** aria-describedby pointing at the error, when there is one. */
export function describedBy(error: string | undefined): string {
  return error ? ' aria-invalid="true" aria-describedby="form-error"' : '';
}

/** A definition list of label → value pairs; null or empty values show as "—". */
export function facts(rows: [string, unknown][]): string {
  return `<dl class="facts">${rows
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${v === null || v === undefined || v === '' ? '—' : esc(v)}</dd>`)
    .join('')}</dl>`;
}
