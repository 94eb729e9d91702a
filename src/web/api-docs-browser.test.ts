/**
 * /docs in Debian's Chromium (issue 36 item 3): the operations show within 2 s of the start of
 * navigation at 390 px (Swagger UI over the same document took 23-37 s on this machine type),
 * under netrep's header with a way back, with no serious axe-core violation and no page wider
 * than a phone's screen.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import { axeProblems } from '../../test/helpers/axe.ts';
import { hasChromium, launchBrowser } from '../../test/helpers/browser.ts';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { REPO } from '../../test/helpers/process.ts';

const SHOTS = path.join(REPO, 'test-artifacts/screenshots');
let t: IntelTestApp;
let base: string;
let browser: Browser;

describe.skipIf(!hasChromium())('/docs in Chromium', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await createIntelTestApp('sqlite');
    base = await t.app.listen();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [name, viewport] of [
    ['docs-390px', { width: 390, height: 844 }],
    ['docs', { width: 1280, height: 900 }],
  ] as const) {
    for (const [url, text] of [
      ['/docs', 'GET /v1/ip/{ip}'],
      ['/docs/ip', 'Answer fields'],
    ] as const) {
      it(`${name} ${url}: "${text}" shows within 2 s, under netrep's header, no axe problem`, async () => {
        const context = await browser.newContext({ viewport, isMobile: viewport.width < 500 });
        const page = await context.newPage();
        // A browser already showing this site (the start page), as a reader arrives from it.
        await page.goto(`${base}/`);
        const started = Date.now();
        await page.goto(`${base}${url}`, { waitUntil: 'commit' });
        await page.getByText(text).first().waitFor({ state: 'visible', timeout: 10_000 });
        const shown = Date.now() - started;
        process.stdout.write(`${name} ${url}: "${text}" visible ${shown} ms after navigation started\n`);
        expect(shown).toBeLessThan(2000);
        expect(await page.locator('header a[href="/"]').count()).toBe(1);
        expect(await page.locator('header a[href="/tools/ip"]').count()).toBe(1);
        await page.screenshot({ path: path.join(SHOTS, `${name}${url.replaceAll('/', '-')}.png`) });
        expect(await axeProblems(page)).toEqual([]);
        const scroll = (await page.evaluate('document.documentElement.scrollWidth')) as number;
        expect(scroll).toBeLessThanOrEqual(viewport.width);
        await context.close();
      });
    }
  }
});
