/**
 * The public pages of issue 36 in Debian Chromium with axe-core, at 1280 and 390 px: the
 * blocklist page asking public lists served on 127.0.0.1 (test/helpers/dnsbl-fixture-zones.ts),
 * the feeds page the home page links, and the page a browser gets for an unknown address.
 * Screenshots go to test-artifacts/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { axeProblems } from '../../test/helpers/axe.ts';
import { hasChromium, launchBrowser } from '../../test/helpers/browser.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import {
  dnsblFixtureZones,
  FIXTURE_ZONES,
  LISTED_IP,
  LISTED_REASON,
} from '../../test/helpers/dnsbl-fixture-zones.ts';
import { REPO } from '../../test/helpers/process.ts';

const SHOTS = path.join(REPO, 'test-artifacts/screenshots');
const WIDTHS = [1280, 390] as const;

let server: ZoneServer;
let t: TestApp;
let base: string;
let browser: Browser;

/** The page at each width: screenshot, no serious axe finding, nothing wider than the screen. */
async function atBothWidths(url: string, name: string, look: (page: Page) => Promise<void>): Promise<void> {
  for (const width of WIDTHS) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, isMobile: width < 800 });
    const page = await context.newPage();
    await page.goto(`${base}${url}`);
    await look(page);
    const shot = width === 1280 ? name : `${name}-390px`;
    await page.screenshot({ path: path.join(SHOTS, `${shot}.png`), fullPage: true });
    expect(await axeProblems(page), `${shot}: axe`).toEqual([]);
    const scroll = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    expect(scroll, `${shot}: page width`).toBeLessThanOrEqual(width);
    await context.close();
  }
}

describe.skipIf(!hasChromium())('blocklist, feeds and error pages in Chromium, with axe-core', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    server = await startZoneServer(dnsblFixtureZones());
    t = await createTestApp('sqlite', {
      config: {
        workers: false,
        dnsServers: server.servers,
        dnsblCheckZones: [...FIXTURE_ZONES],
        dnsblCheckTimeoutMs: 200,
      },
    });
    await t.app.services.blocklist.list({ ip: LISTED_IP, type: 'spam', reason: 'spam trap hits' });
    base = await t.app.listen();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await server?.close();
  });

  it('the blocklist page: this instance’s list, then every public list with its result and delisting link', async () => {
    await atBothWidths('/tools/blocklist', 'tool-blocklists', async (page) => {
      await page.fill('#ip', LISTED_IP);
      await Promise.all([page.waitForURL(/ip=192\.0\.2\.99$/), page.press('#ip', 'Enter')]);
      await expect(page.locator('#own-h').textContent()).resolves.toContain('bl.netrep.test');
      await expect(page.locator('.listed').textContent()).resolves.toContain('Listed for spam');
      const rows = page.locator('table.zones tbody tr');
      expect(await rows.count()).toBe(FIXTURE_ZONES.length);
      const listing = page.locator('tr[data-zone="listing.test"]');
      await expect(listing.locator('.status-listed').textContent()).resolves.toBe('Listed');
      await expect(listing.textContent()).resolves.toContain(LISTED_REASON);
      await expect(page.locator('tr[data-zone="refusing.test"]').textContent()).resolves.toContain(
        'Refused the query',
      );
      await expect(page.locator('tr[data-zone="slow.test"]').textContent()).resolves.toContain('No answer');
      await expect(page.locator('tr[data-zone="broken.test"]').textContent()).resolves.toContain(
        'lists 127.0.0.1',
      );
    });
  });

  it('the RFC 5782 test entry is a permanent test entry, not a listing since 1970', async () => {
    await atBothWidths('/tools/blocklist?ip=127.0.0.2', 'tool-blocklists-test-entry', async (page) => {
      const own = await page.locator('section[aria-labelledby=own-h]').textContent();
      expect(own).toContain('permanent test entry (RFC 5782)');
      expect(own).not.toContain('1970');
    });
  });

  it('the home page’s feeds link opens a page that explains the feeds and keys', async () => {
    await atBothWidths('/', 'home-feeds-link', async (page) => {
      await Promise.all([page.waitForURL(`${base}/feeds`), page.click('main a[href="/feeds"]')]);
      await expect(page.locator('h1').textContent()).resolves.toBe('Threat feeds');
      expect(await page.locator('table tbody tr').count()).toBe(6);
    });
  });

  it('an unknown page is a page with the ways back, not JSON', async () => {
    await atBothWidths('/no/such/page', 'not-found', async (page) => {
      await expect(page.locator('h1').textContent()).resolves.toBe('Page not found');
      expect(await page.locator('main a[href="/"]').count()).toBe(1);
    });
  });
});
