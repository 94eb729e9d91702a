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

  it('/docs is netrep-titled and loads only its own assets from this server (no CDN)', async () => {
    const page = await fetch(`${base}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<title>netrep API</title>');
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(refs.length).toBeGreaterThan(3);
    for (const ref of refs) {
      const url = new URL(ref, page.url);
      expect(url.origin, ref).toBe(new URL(base).origin);
      expect((await fetch(url)).status, ref).toBe(200);
    }
    const init = await (await fetch(`${base}/docs/static/swagger-initializer.js`)).text();
    expect(init).toContain('BaseLayout');
  });

  it.skipIf(!hasChromium())('/docs renders the operations in a real browser', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const requested: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      await page.goto(`${base}/docs`, { waitUntil: 'networkidle' });
      await page.waitForSelector('.opblock-summary-path', { timeout: 15_000 });
      const paths = await page.locator('.opblock-summary-path').allTextContents();
      expect(paths.join(' ')).toContain('/healthz');
      const title = await page.locator('.info .title').textContent();
      expect(title).toContain('netrep API');
      // No Swagger top bar (logo), and every request went to this server.
      expect(await page.locator('.topbar').count()).toBe(0);
      const origin = new URL(base).origin;
      expect(requested.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
