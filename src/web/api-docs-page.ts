/**
 * /docs (issue 36 item 3): the OpenAPI document drawn on the server as one HTML page under
 * netrep's header, split by tag (`/docs` lists every operation, `/docs/{tag}` has them in full).
 * Swagger UI (and RapiDoc, tried the same day) took 23-45 s in headless Chromium
 * on a busy 2-core machine to lay out the ~400 KB document in script; this page has no script
 * (the pages' CSP allows none) and shows its first operations as soon as the HTML arrives. The
 * machine-readable document stays at /openapi.json for client generators and API tools.
 */
import { esc, page } from './html.ts';

type Json = Record<string, unknown>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const STYLE = `<style>
.op{border-top:1px solid #eceff3;padding:.8rem 0}.op h3{font-size:1rem;margin:0 0 .3rem;overflow-wrap:anywhere}
.verb{display:inline-block;min-width:3.6rem;text-align:center;border-radius:4px;padding:0 .3rem;margin-right:.4rem;color:#fff;font:600 .8rem/1.5 ui-monospace,monospace}
.verb-get{background:#1d5fa8}.verb-post{background:#116329}.verb-put,.verb-patch{background:#7a4b00}.verb-delete{background:#b42318}
.docs pre{background:#f2f4f7;border:1px solid #dde1e6;border-radius:6px;padding:.5rem;overflow-x:auto;font:12px/1.4 ui-monospace,monospace;max-height:28rem}
.docs details{margin:.4rem 0}.docs summary{cursor:pointer;color:#0b57c2}.docs ul.toc{padding-left:1.1rem}.docs ul.toc li{margin:.15rem 0;overflow-wrap:anywhere}
.docs td code,.docs li code{overflow-wrap:anywhere}
.docs nav.tags{display:flex;flex-wrap:wrap;gap:.3rem .9rem;margin:0 0 1rem}.docs nav.tags a[aria-current]{font-weight:700;color:#1b1f24}
</style>`;

/** Inline Markdown of the document's texts: `code` spans; everything else as plain text. */
function md(text: unknown): string {
  return esc(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function refName(ref: unknown): string {
  return typeof ref === 'string' ? (ref.split('/').pop() ?? ref) : '';
}

/** A schema's type in a few words: `string or null`, `one of a, b`, `array of IpAnswer`. */
function typeOf(schema: Json | undefined): string {
  if (!schema) return '';
  if (typeof schema.$ref === 'string') return refName(schema.$ref);
  const alternatives = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (alternatives) return alternatives.map(typeOf).join(' or ');
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map(String).join(', ')}`;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.type === 'array') return `array of ${typeOf(schema.items as Json | undefined)}`;
  return String(schema.type ?? 'object');
}

function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  if (!schema || typeof schema.$ref !== 'string') return schema;
  const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  return schemas[refName(schema.$ref)];
}

/** The fields of an answer's `data`, one row each, nested objects one level down (`netrep.is_proxy`). */
function fieldRows(doc: Json, schema: Json | undefined, prefix = '', depth = 0): string[] {
  const s = resolve(doc, schema);
  const props = (s?.properties ?? {}) as Record<string, Json>;
  const rows: string[] = [];
  for (const [name, prop] of Object.entries(props)) {
    const field = `${prefix}${name}`;
    rows.push(
      `<tr><td data-label="Field"><code>${esc(field)}</code></td><td data-label="Type">${esc(typeOf(prop))}</td><td data-label="Description">${md(prop.description ?? resolve(doc, prop)?.description ?? '')}</td></tr>`,
    );
    const inner = resolve(doc, prop);
    if (depth === 0 && inner?.type === 'object' && inner.properties)
      rows.push(...fieldRows(doc, inner, `${field}.`, 1));
  }
  return rows;
}

function table(head: string[], rows: string[]): string {
  if (rows.length === 0) return '';
  return `<table class="stack"><thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function parameters(op: Json): string {
  const params = (op.parameters ?? []) as Json[];
  return table(
    ['Parameter', 'In', 'Type', 'Description'],
    params.map(
      (p) =>
        `<tr><td data-label="Parameter"><code>${esc(p.name)}</code>${p.required ? ' (required)' : ''}</td><td data-label="In">${esc(p.in)}</td><td data-label="Type">${esc(typeOf(p.schema as Json | undefined))}</td><td data-label="Description">${md(p.description ?? '')}</td></tr>`,
    ),
  );
}

function jsonOf(content: unknown): Json | undefined {
  return ((content ?? {}) as Record<string, Json>)['application/json'];
}

function example(media: Json | undefined): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values((media.examples ?? {}) as Record<string, Json>)[0];
  return first?.value;
}

function pre(label: string, value: unknown): string {
  if (value === undefined) return '';
  return `<details><summary>${esc(label)}</summary><pre>${esc(JSON.stringify(value, null, 2))}</pre></details>`;
}

function responses(doc: Json, op: Json): string {
  const answers = (op.responses ?? {}) as Record<string, Json>;
  const codes = Object.entries(answers).map(
    ([code, r]) =>
      `<tr><td data-label="Status">${esc(code)}</td><td data-label="Meaning">${md(r.description ?? '')}</td></tr>`,
  );
  const ok = answers['200'] ?? answers['201'] ?? answers['202'];
  const media = jsonOf(ok?.content);
  const data = ((resolve(doc, media?.schema as Json | undefined)?.properties ?? {}) as Json).data as
    | Json
    | undefined;
  const fields = fieldRows(doc, data);
  return `${table(['Status', 'Meaning'], codes)}${
    fields.length > 0
      ? `<details><summary>Answer fields (<code>data</code>)</summary>${table(['Field', 'Type', 'Description'], fields)}</details>`
      : ''
  }${pre('Example answer', example(media))}`;
}

function access(op: Json): string {
  const security = (op.security ?? []) as Json[];
  return security.length > 0
    ? 'Needs an API key in the <code>X-API-Key</code> header.'
    : 'Public: no key needed.';
}

interface Operation {
  id: string;
  method: string;
  path: string;
  op: Json;
}

function operationsByTag(doc: Json): Map<string, Operation[]> {
  const byTag = new Map<string, Operation[]>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const tag = String(((op.tags ?? ['other']) as unknown[])[0]);
      const id = String(op.operationId ?? `${method}-${path}`).replace(/[^A-Za-z0-9_-]/g, '-');
      byTag.set(tag, [...(byTag.get(tag) ?? []), { id, method, path, op }]);
    }
  }
  return byTag;
}

function operation(doc: Json, { id, method, path, op }: Operation): string {
  const body = jsonOf((op.requestBody as Json | undefined)?.content);
  return `<div class="op" id="op-${esc(id)}"><h3><span class="verb verb-${method}">${method.toUpperCase()}</span><code>${esc(path)}</code></h3>
<p>${md(op.summary ?? '')}</p>${op.description ? `<p>${md(op.description)}</p>` : ''}<p class="muted">${access(op)}</p>
${parameters(op)}${pre('Example request body', example(body))}${responses(doc, op)}</div>`;
}

function tagNames(doc: Json, byTag: Map<string, Operation[]>): string[] {
  const tags = ((doc.tags ?? []) as Json[]).map((t) => String(t.name));
  return [...new Set([...tags, ...byTag.keys()])].filter((n) => byTag.has(n));
}

function describeTag(doc: Json, name: string): unknown {
  return ((doc.tags ?? []) as Json[]).find((t) => t.name === name)?.description ?? '';
}

function tagNav(names: string[], current?: string): string {
  return `<nav aria-label="API sections" class="tags"><a href="/docs"${current ? '' : ' aria-current="page"'}>Overview</a>${names
    .map((n) => `<a href="/docs/${esc(n)}"${n === current ? ' aria-current="page"' : ''}>${esc(n)}</a>`)
    .join('')}</nav>`;
}

/** /docs: what the API is, then every operation in one line, linking to its section's page. */
export function apiDocsPage(doc: Json): string {
  const info = (doc.info ?? {}) as Json;
  const byTag = operationsByTag(doc);
  const names = tagNames(doc, byTag);
  const toc = names
    .map(
      (name) =>
        `<section aria-labelledby="tag-${esc(name)}"><h2 id="tag-${esc(name)}"><a href="/docs/${esc(name)}">${esc(name)}</a></h2><p>${md(describeTag(doc, name))}</p><ul class="toc">${(
          byTag.get(name) ?? []
        )
          .map(
            (o) =>
              `<li><a href="/docs/${esc(name)}#op-${esc(o.id)}"><code>${o.method.toUpperCase()} ${esc(o.path)}</code></a> ${md(o.op.summary ?? '')}</li>`,
          )
          .join('')}</ul></section>`,
    )
    .join('');
  const paragraphs = String(info.description ?? '')
    .split(/\n\s*\n/)
    .map((p) => `<p>${md(p)}</p>`)
    .join('');
  return page(
    'API docs',
    `${STYLE}<div class="docs"><h1>netrep API <span class="muted">${esc(info.version)}</span></h1>${tagNav(names)}
<section aria-label="About the API">${paragraphs}<p>The same reference as an OpenAPI 3.1 document, for client generators and API tools: <a href="/openapi.json">/openapi.json</a>.</p></section>${toc}</div>`,
  );
}

/** /docs/{tag}: one section's operations in full; null for a section the document does not have. */
export function apiDocsTagPage(doc: Json, tag: string): string | null {
  const byTag = operationsByTag(doc);
  const ops = byTag.get(tag);
  if (!ops) return null;
  return page(
    `${tag} · API docs`,
    `${STYLE}<div class="docs"><h1>netrep API: ${esc(tag)}</h1>${tagNav(tagNames(doc, byTag), tag)}<section aria-label="${esc(tag)} operations"><p>${md(describeTag(doc, tag))}</p>${ops
      .map((o) => operation(doc, o))
      .join('')}</section></div>`,
  );
}

/** /docs/{tag} for a section the document does not have. */
export function apiDocsMissingPage(): string {
  return page(
    'Not found · API docs',
    '<h1>No such API section</h1><p>See the <a href="/docs">API docs overview</a> for the sections.</p>',
  );
}
