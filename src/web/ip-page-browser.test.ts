/**
 * The IP page in Debian's Chromium with axe-core (issue 36 item 4), at 1280 and 390 px: a
 * critical address (a malware listing and a pristine trap hit on the real app), a low one and a
 * bogon. No serious or critical axe violation (colour contrast of the severity badges included),
 * no page wider than the screen; screenshots in test-artifacts/screenshots/.
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
const CRITICAL = '1.0.0.7';
let t: IntelTestApp;
let base: string;
let browser: Browser;

describe.skipIf(!hasChromium())('the IP page in Chromium', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await createIntelTestApp('sqlite');
    base = await t.app.listen();
    const admin = await t.key({ permissions: ['admin'] });
    const post = (url: string, payload: object) =>
      t.app.http.inject({ method: 'POST', url, headers: { 'x-api-key': admin }, payload });
    await post('/v1/admin/blocklist/listings', { ip: CRITICAL, type: 'malware', reason: 'test' });
    await post('/v1/admin/evidence', {
      events: [{ ip: CRITICAL, kind: 'pristine_trap', observed_at: new Date(t.clock()).toISOString() }],
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [name, viewport] of [
    ['', { width: 1280, height: 900 }],
    ['-390px', { width: 390, height: 844 }],
  ] as const) {
    for (const [ip, level, sign] of [
      [CRITICAL, 'Threat level: Critical', "Danger: On this instance's blocklist."],
      ['8.8.8.8', 'Threat level: Low', 'No warning signs.'],
      ['10.1.2.3', null, 'is not a public address'],
    ] as const) {
      it(`${ip} at ${viewport.width} px: severity in words, axe-clean, fits the screen`, async () => {
        const context = await browser.newContext({ viewport, isMobile: viewport.width < 500 });
        const page = await context.newPage();
        await page.goto(`${base}/tools/ip?ip=${ip}`);
        if (level) await page.getByText(level).waitFor({ timeout: 10_000 });
        await page.getByText(sign).first().waitFor({ timeout: 10_000 });
        await page.screenshot({ path: path.join(SHOTS, `tool-ip-${ip}${name}.png`), fullPage: true });
        expect(await axeProblems(page)).toEqual([]);
        const scroll = (await page.evaluate('document.documentElement.scrollWidth')) as number;
        expect(scroll).toBeLessThanOrEqual(viewport.width);
        await context.close();
      });
    }
  }
});
