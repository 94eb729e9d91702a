/**
 * Dashboard → Reports in Debian Chromium with axe-core, at 1280 and 390 px (issue #38 item 2): a
 * sample report uploaded through the form (the outcome shown), a refused one (its reason), the
 * domains list, a domain's page with its charts, sources by address and by organisation, failure
 * samples and TLS failures, and the rejected uploads; no horizontal overflow, even with a hostile
 * reporter name of 600 characters. Screenshots go to test-artifacts/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeProblems } from '../../test/helpers/axe.ts';
import { hasChromium, launchBrowser } from '../../test/helpers/browser.ts';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { REPO } from '../../test/helpers/process.ts';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';

const SHOTS = path.join(REPO, 'test-artifacts/screenshots');
const SAMPLES = sharedDataPath('email', 'dmarc');
const MEMBER = { email: 'reports-browser@example.test', password: 'reports-password-1' };
const LONG_ORG = `<b>Reporter</b> "${'W'.repeat(600)}"`;

let t: IntelTestApp;
let base: string;
let browser: Browser;
let key: string;

/** A day's aggregate report for wide.example from 8.8.8.8 and 1.1.1.1, one reporter with a long name. */
function aggregate(day: number, pass: number, fail: number): string {
  const begin = Date.UTC(2026, 4, 1) / 1000 + day * 86_400;
  const row = (ip: string, count: number, result: string) =>
    `<record><row><source_ip>${ip}</source_ip><count>${count}</count><policy_evaluated><disposition>none</disposition><dkim>${result}</dkim><spf>${result}</spf></policy_evaluated></row><identifiers><header_from>wide.example</header_from></identifiers><auth_results><spf><domain>wide.example</domain><result>${result}</result></spf></auth_results></record>`;
  return `<?xml version="1.0"?><feedback><report_metadata><org_name>${day % 2 ? 'mail.example' : LONG_ORG.replace(/</g, '&lt;')}</org_name><email>d@r.example</email><report_id>wide-${day}</report_id><date_range><begin>${begin}</begin><end>${begin + 86_399}</end></date_range></report_metadata><policy_published><domain>wide.example</domain><p>quarantine</p></policy_published>${row('8.8.8.8', pass, 'pass')}${fail ? row('1.1.1.1', fail, 'fail') : ''}</feedback>`;
}

async function signedIn(width: 1280 | 390): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width, height: width === 1280 ? 900 : 844 },
    isMobile: width < 500,
  });
  const page = await context.newPage();
  await page.goto(`${base}/dashboard/login`);
  await page.fill('input[name=email]', MEMBER.email);
  await page.fill('input[name=password]', MEMBER.password);
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

describe.skipIf(!hasChromium())('dashboard reports in Chromium, with axe-core', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await createIntelTestApp('sqlite', { config: { workers: false } });
    const { user } = await t.app.services.accounts.createUser({ ...MEMBER, role: 'member' });
    key = await t.key({ permissions: ['email:read'], ownerId: user.id });
    const bodies = [
      ...['failure', 'smtp_tls'].flatMap((dir) =>
        fs.readdirSync(path.join(SAMPLES, dir)).map((f) => fs.readFileSync(path.join(SAMPLES, dir, f))),
      ),
      ...Array.from({ length: 30 }, (_, d) =>
        Buffer.from(aggregate(d, 20 + ((d * 7) % 40), d % 5 === 0 ? 25 : d % 3)),
      ),
    ];
    for (const payload of bodies)
      await t.app.http.inject({
        method: 'POST',
        url: '/v1/email/reports',
        headers: { 'x-api-key': key, 'content-type': 'application/octet-stream' },
        payload,
      });
    base = await t.app.listen();
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('uploads through the form and shows what became of it', async () => {
    const page = await signedIn(1280);
    await Promise.all([page.waitForURL(`${base}/dashboard/reports`), page.click('nav a:text-is("Reports")')]);
    await page.setInputFiles(
      'input[name=report]',
      path.join(SAMPLES, 'aggregate', 'example.net_example.com_1529366400_1529452799.xml'),
    );
    await Promise.all([
      page.waitForURL(/stored=\d+$/),
      page.click('form[action="/dashboard/reports/upload"] button'),
    ]);
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Stored: aggregate report');
    await check(page, 'dashboard-reports-stored');
    await page.setInputFiles('input[name=report]', path.join(SAMPLES, 'aggregate', 'invalid_xml.xml'));
    await Promise.all([
      page.waitForURL(/rejected=\d+$/),
      page.click('form[action="/dashboard/reports/upload"] button'),
    ]);
    await expect(page.locator('[role=alert]').textContent()).resolves.toMatch(/^Rejected: XML/);
    await Promise.all([page.waitForURL(`${base}/dashboard/reports/rejected`), page.click('[role=alert] a')]);
    await expect(page.locator('main table').textContent()).resolves.toContain('XML');
    await page.context().close();
  }, 60_000);

  it('the domains list, a domain page and the rejected uploads pass axe at both widths without overflow', async () => {
    for (const width of [1280, 390] as const) {
      const page = await signedIn(width);
      await page.goto(`${base}/dashboard/reports`);
      await check(page, 'dashboard-reports');
      await Promise.all([
        page.waitForURL(`${base}/dashboard/reports/wide.example`),
        page.click('a:text-is("wide.example")'),
      ]);
      await expect(page.locator('#summary-h').textContent()).resolves.toContain('2026-05-01 to 2026-05-30');
      expect(await page.locator('figure.chart svg[role=img]').count()).toBe(2);
      await expect(page.locator('#volume-d').textContent()).resolves.toMatch(
        /^30 days from 2026-05-01 to 2026-05-30: /,
      );
      await expect(page.locator('#sources-h').textContent()).resolves.toBe('Who sends as wide.example');
      await check(page, 'dashboard-reports-domain');
      await Promise.all([page.waitForURL(/group=organization/), page.click('a:text-is("By organisation")')]);
      await expect(
        page.locator('nav[aria-label="Group sources"] a[aria-current=page]').textContent(),
      ).resolves.toBe('By organisation');
      await check(page, 'dashboard-reports-domain-organisations');
      // A period typed in the form; a bad one is explained on the page.
      await page.fill('input[name=from]', '2026-05-10');
      await page.fill('input[name=to]', '2026-05-12');
      await Promise.all([page.waitForURL(/from=2026-05-10/), page.click('form[aria-label=Period] button')]);
      await expect(page.locator('#summary-h').textContent()).resolves.toContain('2026-05-10 to 2026-05-12');
      await page.fill('input[name=from]', '2026-02-30');
      await Promise.all([page.waitForURL(/from=2026-02-30/), page.click('form[aria-label=Period] button')]);
      await expect(page.locator('[role=alert]').textContent()).resolves.toContain(
        'from must be a date as YYYY-MM-DD',
      );
      await check(page, 'dashboard-reports-domain-refused');
      await page.goto(`${base}/dashboard/reports/rejected`);
      await check(page, 'dashboard-reports-rejected');
      await page.context().close();
    }
  }, 120_000);

  it('failure samples and TLS failures show on their domains pages', async () => {
    const { domains } = (
      await t.app.http.inject({ url: '/v1/email/reports/domains', headers: { 'x-api-key': key } })
    ).json().data as { domains: { domain: string; failure_reports: number; tls_reports: number }[] };
    const failing = domains.find((d) => d.failure_reports > 0);
    const tls = domains.find((d) => d.tls_reports > 0);
    for (const width of [1280, 390] as const) {
      const page = await signedIn(width);
      await page.goto(`${base}/dashboard/reports/${failing?.domain}`);
      expect(await page.locator('section[aria-labelledby=failures-h] tbody tr').count()).toBeGreaterThan(0);
      await check(page, 'dashboard-reports-failures');
      await page.goto(`${base}/dashboard/reports/${tls?.domain}`);
      expect(await page.locator('section[aria-labelledby=tls-h] tbody tr').count()).toBeGreaterThan(0);
      await check(page, 'dashboard-reports-tls');
      await page.context().close();
    }
  }, 120_000);
});
