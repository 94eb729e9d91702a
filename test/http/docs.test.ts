import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { hasChromium, launchBrowser } from '../helpers/browser.ts';

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await createTestApp('sqlite');
  base = await t.app.listen();
});
afterAll(async () => {
  await t.close();
});

describe('API documentation', () => {
  it('/openapi.json is a valid OpenAPI 3.1 document generated from the route schemas', async () => {
    const res = await fetch(`${base}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { security?: unknown }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(doc.paths)).toContain('/healthz');
    expect(doc.paths['/v1/admin/keys/{key_id}/features']?.post?.security).toEqual([{ apiKey: [] }]);
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/docs'))).toBe(false);
  });

  it('/docs is netrep-titled HTML with no script, and every link on it answers from this server (no CDN)', async () => {
    const page = await fetch(`${base}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<title>API docs · netrep</title>');
    expect(html).not.toContain('<script');
    const refs = [...new Set([...html.matchAll(/(?:src|href)="([^"#]+)/g)].map((m) => m[1] ?? ''))];
    expect(refs).toEqual(expect.arrayContaining(['/', '/openapi.json', '/docs/ip']));
    for (const ref of refs) {
      const url = new URL(ref, page.url);
      expect(url.origin, ref).toBe(new URL(base).origin);
      expect((await fetch(url)).status, ref).toBe(200);
    }
  });

  it.skipIf(!hasChromium())(
    '/docs/{tag} shows the operations in a real browser, every request to this server',
    async () => {
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage();
        const requested: string[] = [];
        page.on('request', (r) => requested.push(r.url()));
        await page.goto(`${base}/docs/health`, { waitUntil: 'networkidle' });
        expect(await page.locator('.op h3').allTextContents()).toContain('GET/healthz');
        const origin = new URL(base).origin;
        expect(requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'))).toEqual([]);
      } finally {
        await browser.close();
      }
    },
  );
});
