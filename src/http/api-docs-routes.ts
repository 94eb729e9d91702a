/**
 * The OpenAPI document (`/openapi.json`) and the reference drawn from it on the server
 * (`/docs`, `/docs/{tag}`; web/api-docs-page.ts): no script to wait for (issue 36).
 */
import { apiDocsMissingPage, apiDocsPage, apiDocsTagPage } from '../web/api-docs-page.ts';
import type { HttpApp } from './context.ts';
import { sendHtml } from './html-reply.ts';

const documentRoute = {
  schema: { hide: true },
  config: { access: { kind: 'none' as const }, envelope: false },
};

export function registerApiDocsRoutes(app: HttpApp): void {
  app.get('/openapi.json', documentRoute, async () => app.swagger());
  // Each page drawn once per document, split by tag.
  const docsPages = new WeakMap<object, Map<string, string | null>>();
  const docsPage = (tag: string | undefined): string | null => {
    const doc = app.swagger() as Record<string, unknown>;
    const pages = docsPages.get(doc) ?? new Map<string, string | null>();
    docsPages.set(doc, pages);
    const key = tag ?? '';
    if (!pages.has(key)) pages.set(key, tag === undefined ? apiDocsPage(doc) : apiDocsTagPage(doc, tag));
    return pages.get(key) ?? null;
  };
  app.get('/docs', documentRoute, async (_req, reply) => sendHtml(reply, docsPage(undefined) ?? ''));
  app.get<{ Params: { tag: string } }>('/docs/:tag', documentRoute, async (req, reply) => {
    const html = /^[a-z]{1,20}$/.test(req.params.tag) ? docsPage(req.params.tag) : null;
    return html === null ? sendHtml(reply, apiDocsMissingPage(), 404) : sendHtml(reply, html);
  });
}
