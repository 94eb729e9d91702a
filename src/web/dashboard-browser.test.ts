/**
 * Every dashboard page in Debian Chromium with axe-core, at 1280 and 390 px (issue 36 item 7):
 * the menu names every dashboard page and marks the current one; forms share one style (controls
 * in the page's font size, labels above them) and Sign out is a secondary button; an audit job is
 * started from its form and opens to its result. Screenshots go to test-artifacts/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeProblems } from '../../test/helpers/axe.ts';
import { hasChromium, launchBrowser } from '../../test/helpers/browser.ts';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { REPO } from '../../test/helpers/process.ts';

const SHOTS = path.join(REPO, 'test-artifacts/screenshots');
const ADMIN = { email: 'menu-admin@example.test', password: 'menu-admin-password-1' };

let t: IntelTestApp;
let base: string;
let browser: Browser;
const contexts: Record<number, BrowserContext> = {};

async function signedIn(width: 1280 | 390): Promise<Page> {
  const page = await (contexts[width] as BrowserContext).newPage();
  await page.goto(`${base}/dashboard/login`);
  await page.fill('input[name=email]', ADMIN.email);
  await page.fill('input[name=password]', ADMIN.password);
  await Promise.all([page.waitForURL(`${base}/dashboard/keys`), page.click('main button[type=submit]')]);
  return page;
}

async function check(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  const shot = width === 1280 ? name : `${name}-390px`;
  await page.screenshot({ path: path.join(SHOTS, `${shot}.png`), fullPage: true });
  expect(await axeProblems(page), `${shot}: axe`).toEqual([]);
  const scroll = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  expect(scroll, `${shot}: page width`).toBeLessThanOrEqual(width);
}

/** Font sizes of the page text and of every visible form control, and where labels sit. */
const FORM_FACTS = `(() => {
  const body = parseFloat(getComputedStyle(document.body).fontSize);
  const controls = [...document.querySelectorAll('main input:not([type=hidden]), main select, main textarea, main button, header button')]
    .filter((e) => e.offsetParent !== null)
    .map((e) => parseFloat(getComputedStyle(e).fontSize));
  const beside = [...document.querySelectorAll('main label:not(.check)')]
    .filter((l) => l.offsetParent !== null && l.querySelector('input, select, textarea'))
    .filter((l) => {
      const control = l.querySelector('input, select, textarea').getBoundingClientRect();
      const text = document.createRange();
      text.selectNodeContents(l.firstChild);
      return control.top < text.getBoundingClientRect().bottom - 1;
    }).length;
  const out = document.querySelector('header button');
  return { body, controls, beside, signOut: out.className, signOutBg: getComputedStyle(out).backgroundColor };
})()`;

describe.skipIf(!hasChromium())('dashboard pages in Chromium, with axe-core', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await createIntelTestApp('sqlite', { config: { workers: false } });
    const { user } = await t.app.services.accounts.createUser({ ...ADMIN, role: 'admin' });
    await t.app.services.webhooks.saveIp(user.id, 'enterprise', '192.0.2.1', 'relay');
    await t.app.services.blocklist.list({ ip: '203.0.113.5', type: 'spam', reason: 'trap hits' });
    base = await t.app.listen();
    browser = await launchBrowser();
    contexts[1280] = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts[390] = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the menu names every dashboard page; each page passes axe at both widths with one form style', async () => {
    // Every page the dashboard serves by GET (but sign-in, the bare redirect and pages of one item).
    const pages = t.app.http.routeList
      .filter(
        (r) => r.method === 'GET' && /^\/dashboard\/[a-z-]+$/.test(r.url) && r.url !== '/dashboard/login',
      )
      .map((r) => r.url)
      .sort();
    expect(pages).toEqual(
      expect.arrayContaining([
        '/dashboard/audit',
        '/dashboard/keys',
        '/dashboard/saved-ips',
        '/dashboard/webhooks',
      ]),
    );
    for (const width of [1280, 390] as const) {
      const page = await signedIn(width);
      const menu = (
        await page.locator('header nav a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))
      )
        .filter((h): h is string => h?.startsWith('/dashboard/') === true)
        .sort();
      expect(menu).toEqual(pages);
      for (const url of pages) {
        await page.goto(`${base}${url}`);
        expect(page.url(), url).toBe(`${base}${url}`);
        await expect(page.locator('header nav a[aria-current=page]').getAttribute('href')).resolves.toBe(url);
        const facts = (await page.evaluate(FORM_FACTS)) as {
          body: number;
          controls: number[];
          beside: number;
          signOut: string;
          signOutBg: string;
        };
        expect(new Set(facts.controls), `${url}: control font sizes`).toEqual(new Set([facts.body]));
        expect(facts.beside, `${url}: labels beside their control`).toBe(0);
        expect(facts.signOut).toBe('secondary');
        expect(facts.signOutBg).toBe('rgba(0, 0, 0, 0)');
        await check(page, `dashboard${url.replace('/dashboard', '').replaceAll('/', '-')}`);
      }
      await page.close();
    }
  }, 240_000);

  it('an audit job is started from its form and opens to its result', async () => {
    for (const width of [1280, 390] as const) {
      const page = await signedIn(width);
      await page.goto(`${base}/dashboard/audit`);
      await page.fill('textarea[name=targets]', '192.0.2.8 198.51.100.0/30');
      await page.fill('input[name=seed]', `browser-${width}`);
      await Promise.all([
        page.waitForURL(/\/dashboard\/audit\/\d+$/),
        page.click('main form button[type=submit]'),
      ]);
      await expect(page.locator('h1').textContent()).resolves.toMatch(/^Audit job \d+$/);
      await expect(page.locator('#sum-h + dl').textContent()).resolves.toContain('queued');
      await check(page, 'dashboard-audit-job');
      await page.goto(`${base}/dashboard/audit`);
      expect(await page.locator('main table a[href^="/dashboard/audit/"]').count()).toBeGreaterThan(0);
      await page.close();
    }
  }, 120_000);
});
