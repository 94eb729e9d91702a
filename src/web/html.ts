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
header a{color:#cfe3ff;text-decoration:none}header strong{font-size:1.1rem;margin-right:auto}
main{max-width:1100px;margin:1.5rem auto;padding:0 1.5rem}
section{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:1rem 1.25rem;margin-bottom:1.25rem}
h1{font-size:1.4rem;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:.2rem 0 .8rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid #eceff3;vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;color:#5a6470;letter-spacing:.03em}
code{background:#eef1f5;padding:.1rem .3rem;border-radius:4px}
.secret{font:600 1rem ui-monospace,monospace;background:#fff8d6;border:1px solid #e6c200;padding:.6rem;border-radius:6px;word-break:break-all}
.error{background:#fde8e8;border:1px solid #e0a3a3;padding:.6rem;border-radius:6px}
.muted{color:#6a737d;font-size:.85rem}
label{display:block;margin:.4rem 0}input[type=text],input[type=email],input[type=password],select{padding:.4rem;border:1px solid #c4cad1;border-radius:5px;min-width:16rem}
button{background:#1f6feb;color:#fff;border:0;border-radius:5px;padding:.45rem .9rem;cursor:pointer}
button.danger{background:#c62828}fieldset{border:1px solid #dde1e6;border-radius:6px}
.bars{display:flex;gap:1px;align-items:flex-end;height:28px}.bars span{display:block;width:4px;background:#1f6feb;min-height:1px}
`;

export function page(
  title: string,
  body: string,
  nav?: { email: string; role: string; csrf: string },
): string {
  const header = nav
    ? `<header><strong>netrep</strong><a href="/dashboard/keys">API keys</a><a href="/dashboard/audit">Audit jobs</a>${
        nav.role === 'admin' ? '<a href="/dashboard/blocklist">Blocklist</a>' : ''
      }<a href="/docs">API docs</a><span class="muted" style="color:#cfd8e3">${esc(nav.email)} (${esc(nav.role)})</span>
      <form method="post" action="/dashboard/logout" style="margin:0"><input type="hidden" name="_csrf" value="${esc(nav.csrf)}"><button>Sign out</button></form></header>`
    : '<header><strong>netrep</strong><a href="/docs">API docs</a></header>';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · netrep</title><style>${STYLE}</style></head><body>${header}<main>${body}</main></body></html>`;
}
