/**
 * The domain tool page when the DNS does not answer (issue 31), in Debian Chromium through
 * playwright-core against the real app and a real zone server on 127.0.0.1: a partly failing
 * domain shows its grade as incomplete and says "could not check" for the records it could not
 * read; a domain none of whose MX, SPF and DMARC could be read shows no grade at all. Each page
 * gets a screenshot in test-artifacts/screenshots/, an axe-core audit and, at 390 px, no
 * horizontal overflow.
 */

import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { axeProblems } from '../../test/helpers/axe.ts';
import { hasChromium, launchBrowser } from '../../test/helpers/browser.ts';
import { startZoneServer, type Zone, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { REPO } from '../../test/helpers/process.ts';
import { DEFAULT_DKIM_SELECTORS } from '../emailauth/index.ts';

const SHOTS = path.join(REPO, 'test-artifacts/screenshots');

function zone(): Zone {
  const down: Zone = {
    'down-mail.com': [{ type: 'SERVFAIL' }],
    '_dmarc.down-mail.com': [{ type: 'SERVFAIL' }],
  };
  for (const s of DEFAULT_DKIM_SELECTORS) down[`${s}._domainkey.down-mail.com`] = [{ type: 'SERVFAIL' }];
  return {
    ...down,
    // MX answers; SPF answers SERVFAIL; DMARC is refused; DKIM selector google is refused.
    'part-mail.com': [
      { type: 'MX', data: { preference: 10, exchange: 'mx.part-mail.com' } },
      { type: 'SERVFAIL' },
    ],
    'mx.part-mail.com': [{ type: 'A', data: '192.0.2.1' }],
    'google._domainkey.part-mail.com': [{ type: 'REFUSED' }],
    '_dmarc.part-mail.com': [{ type: 'REFUSED' }],
  };
}

let server: ZoneServer;
let t: TestApp;
let base: string;
let browser: Browser;
let desktop: BrowserContext;
let phone: BrowserContext;

async function check(page: Page, name: string, width: number): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  expect(await axeProblems(page), `${name}: axe`).toEqual([]);
  const scroll = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  expect(scroll, `${name}: page width at ${width} px`).toBeLessThanOrEqual(width);
}

const skip = !hasChromium();

describe.skipIf(skip)('the domain tool page when records could not be checked', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    server = await startZoneServer(zone());
    t = await createTestApp('sqlite', { config: { dnsServers: server.servers } });
    base = await t.app.listen();
    browser = await launchBrowser();
    desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await server?.close();
  });

  it('some records unread: the grade is marked incomplete, each unread record says could not check', async () => {
    for (const [context, name, width] of [
      [desktop, 'tool-domain-incomplete', 1280],
      [phone, 'tool-domain-incomplete-390px', 390],
    ] as const) {
      const page = await context.newPage();
      await page.goto(`${base}/tools/domain`);
      await page.fill('#domain', 'part-mail.com');
      await Promise.all([page.waitForURL(/domain=part-mail\.com$/), page.click('form.tool button')]);
      await check(page, name, width);
      expect(await page.locator('.grade .letter').getAttribute('aria-label')).toMatch(
        /^grade [A-F], incomplete$/,
      );
      const notice = await page.locator('#incomplete').textContent();
      expect(notice).toContain('Incomplete: could not check SPF, DKIM selector google, DMARC.');
      expect(notice).toContain(`${server.servers[0]} (NETREP_DNS_SERVERS)`);
      for (const h of ['mx-h', 'spf-h', 'dkim-h', 'dmarc-h']) {
        const text = (await page.locator(`section[aria-labelledby="${h}"]`).textContent()) ?? '';
        if (h === 'mx-h') expect(text).not.toMatch(/could not check/i);
        else expect(text, h).toMatch(/could not check/i);
        expect(text, h).not.toMatch(/No SPF record|No DMARC record|Strength|No DKIM key found/);
      }
      const recs = (await page.locator('#rec-h + ul').textContent()) ?? '';
      expect(recs).not.toMatch(/SPF: publish|DMARC: publish|publish a 2048-bit/);
      await page.close();
    }
  });

  it('nothing read: no grade, the reason and NETREP_DNS_SERVERS in an alert', async () => {
    for (const [context, name, width] of [
      [desktop, 'tool-domain-dns-unavailable', 1280],
      [phone, 'tool-domain-dns-unavailable-390px', 390],
    ] as const) {
      const page = await context.newPage();
      const res = await page.goto(`${base}/tools/domain?domain=down-mail.com`);
      expect(res?.status()).toBe(503);
      await check(page, name, width);
      expect(await page.locator('.grade').count()).toBe(0);
      const alert = (await page.locator('[role=alert]').textContent()) ?? '';
      expect(alert).toContain('Could not check MX, SPF or DMARC of down-mail.com');
      expect(alert).toContain('NETREP_DNS_SERVERS');
      await page.close();
    }
  });
});
