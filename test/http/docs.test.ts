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

  it.skipIf(!hasChromium())('/docs renders the operations in a real browser', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${base}/docs`, { waitUntil: 'networkidle' });
      await page.waitForSelector('.opblock-summary-path', { timeout: 15_000 });
      const paths = await page.locator('.opblock-summary-path').allTextContents();
      expect(paths.join(' ')).toContain('/healthz');
      const title = await page.locator('.info .title').textContent();
      expect(title).toContain('netrep API');
    } finally {
      await browser.close();
    }
  });
});
