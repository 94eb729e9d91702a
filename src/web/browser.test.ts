/**
 * Every public page and dashboard flow as a person uses them (issue 19): Debian Chromium driven
 * by playwright-core against the real app (real dataset, real DNS server on 127.0.0.1, real
 * store). Each page gets a screenshot in test-artifacts/screenshots/ (gitignored), an axe-core
 * audit (no serious or critical violation) and, at 390 px width, no horizontal overflow.
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import { axeProblems } from '../../test/helpers/axe.ts';
import { hasChromium, launchBrowser } from '../../test/helpers/browser.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { REPO } from '../../test/helpers/process.ts';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';

const SHOTS = path.join(REPO, 'test-artifacts/screenshots');
const HEADERS = fs.readFileSync(sharedDataPath('email/headers/spamscope-mail_test_6.headers.txt'), 'utf8');
const DKIM_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .publicKey.export({ format: 'der', type: 'spki' })
  .toString('base64');

let server: ZoneServer;
let t: IntelTestApp;
let base: string;
let browser: Browser;
let desktop: BrowserContext;
let phone: BrowserContext;

/** Screenshot, axe audit and (on the phone) no page wider than the screen. */
async function check(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  expect(await axeProblems(page), `${name}: axe`).toEqual([]);
  const width = page.viewportSize()?.width ?? 0;
  const scroll = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  expect(scroll, `${name}: page width at ${width} px`).toBeLessThanOrEqual(width);
}

/** The same URL in both contexts, checked in each; returns the desktop page, still open. */
async function both(url: string, name: string, act?: (page: Page) => Promise<void>): Promise<Page> {
  const small = await phone.newPage();
  await small.goto(`${base}${url}`);
  if (act) await act(small);
  await check(small, `${name}-390px`);
  await small.close();
  const page = await desktop.newPage();
  await page.goto(`${base}${url}`);
  if (act) await act(page);
  await check(page, name);
  return page;
}

const skip = !hasChromium();

describe.skipIf(skip)('public pages and dashboard in Chromium, with axe-core', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    server = await startZoneServer({
      'strong.com': [
        { type: 'MX', data: { preference: 10, exchange: 'mx.strong.com' } },
        { type: 'TXT', data: 'v=spf1 ip4:192.0.2.0/24 include:_spf.strong.com ~all' },
      ],
      '_spf.strong.com': [{ type: 'TXT', data: 'v=spf1 ip4:198.51.100.0/24 -all' }],
      'mx.strong.com': [{ type: 'A', data: '192.0.2.1' }],
      'google._domainkey.strong.com': [{ type: 'TXT', data: ['v=DKIM1; k=rsa; p=', DKIM_KEY] }],
      '_dmarc.strong.com': [{ type: 'TXT', data: 'v=DMARC1; p=quarantine; pct=50' }],
    });
    t = await createIntelTestApp('sqlite', { config: { dnsServers: server.servers } });
    base = await t.app.listen();
    browser = await launchBrowser();
    desktop = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await server?.close();
  });

  it('the start page links to every tool, the dashboard and the docs', async () => {
    const page = await both('/', 'home');
    for (const href of [
      '/tools/ip',
      '/tools/domain',
      '/tools/headers',
      '/tools/blocklist',
      '/dashboard',
      '/docs',
    ]) {
      expect(await page.locator(`main a[href="${href}"]`).count(), href).toBeGreaterThan(0);
    }
    // Keyboard: the first Tab reaches the skip link, which moves to the content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    await page.close();
  });

  it('IP lookup: typed into the form, a real answer with flags, threat and DB-IP attribution', async () => {
    const page = await both('/tools/ip', 'tool-ip', async (p) => {
      await p.fill('#ip', '8.8.8.8');
      await Promise.all([p.waitForURL(/\/tools\/ip\?ip=8\.8\.8\.8$/), p.press('#ip', 'Enter')]);
    });
    await expect(page.locator('main').textContent()).resolves.toContain('AS15169 Google LLC');
    await expect(page.locator('#threat-h + .verdict').textContent()).resolves.toContain('/100');
    expect(await page.locator('a[href="https://db-ip.com"]').textContent()).toBe('IP Geolocation by DB-IP');
    await page.close();
    // Bad input: the form again with the message, announced as an alert.
    const bad = await both('/tools/ip?ip=300.1.2.3', 'tool-ip-error');
    await expect(bad.locator('[role=alert]').textContent()).resolves.toContain(
      'is not an IPv4 or IPv6 address',
    );
    expect(await bad.locator('#ip').getAttribute('aria-invalid')).toBe('true');
    await bad.close();
  });

  it('domain check: grade card, findings per record, recommendations', async () => {
    const page = await both('/tools/domain', 'tool-domain', async (p) => {
      await p.fill('#domain', 'strong.com');
      await Promise.all([p.waitForURL(/domain=strong\.com$/), p.click('form.tool button')]);
    });
    expect(await page.locator('.grade .letter').textContent()).toMatch(/^[A-F]$/);
    for (const h of ['MX', 'SPF', 'DKIM', 'DMARC', 'Recommendations']) {
      expect(await page.locator('h2', { hasText: new RegExp(`^${h}$`) }).count(), h).toBe(1);
    }
    expect(await page.locator('#rec-h + ul li').count()).toBeGreaterThan(0);
    await page.close();
  });

  it('header analysis: pasted headers give a hop timeline, authentication and anomalies', async () => {
    const page = await both('/tools/headers', 'tool-headers', async (p) => {
      await p.fill('#headers', HEADERS);
      await Promise.all([p.waitForURL(/\/tools\/headers$/), p.click('form.tool button')]);
    });
    expect(await page.locator('ol.timeline > li').count()).toBeGreaterThan(1);
    expect(await page.locator('.delay').count()).toBeGreaterThan(0);
    await expect(page.locator('#auth-h + dl').textContent()).resolves.toContain('SPF');
    // Every Authentication-Results header with its trust, the signatures and the ARC section (issue 31).
    expect(await page.locator('#ar-h ~ table tbody tr').count()).toBeGreaterThan(0);
    await expect(page.locator('#dkim-h + ul').textContent()).resolves.toContain('d=');
    await expect(page.locator('#arc-h + p').textContent()).resolves.toContain('No ARC headers');
    await page.close();
  });

  it('blocklist check: a listed and a clean address', async () => {
    await t.app.services.blocklist.list({ ip: '203.0.113.9', type: 'spam', reason: 'spam trap hits' });
    const page = await both('/tools/blocklist', 'tool-blocklist', async (p) => {
      await p.fill('#ip', '203.0.113.9');
      await Promise.all([p.waitForURL(/ip=203\.0\.113\.9$/), p.press('#ip', 'Enter')]);
    });
    await expect(page.locator('.listed').textContent()).resolves.toContain('Listed for spam');
    await page.goto(`${base}/tools/blocklist?ip=198.51.100.77`);
    await expect(page.locator('.clean').textContent()).resolves.toContain('Not listed');
    await page.close();
  });

  it('dashboard: one-time password, forced change, create key (secret once), revoke with confirmation', async () => {
    const { password: oneTime } = await t.app.services.accounts.createUser({
      email: 'first@example.test',
      role: 'admin',
    });
    const page = await both('/dashboard/login', 'dashboard-login');
    await page.fill('input[name=email]', 'first@example.test');
    await page.fill('input[name=password]', oneTime);
    await Promise.all([page.waitForURL(`${base}/dashboard/password`), page.click('button[type=submit]')]);
    await expect(page.locator('main [role=status]').textContent()).resolves.toContain('one-time password');
    await check(page, 'dashboard-password-forced');
    // Nothing else opens until the password is changed.
    await page.goto(`${base}/dashboard/keys`);
    expect(page.url()).toBe(`${base}/dashboard/password`);
    // A mismatch and a wrong current password are refused with a message.
    await page.fill('input[name=current]', oneTime);
    await page.fill('input[name=password]', 'chosen-password-1');
    await page.fill('input[name=confirm]', 'chosen-password-2');
    await page.click('main button[type=submit]');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('differ');
    await check(page, 'dashboard-password-error');
    await page.fill('input[name=current]', 'not-the-password');
    await page.fill('input[name=password]', 'chosen-password-1');
    await page.fill('input[name=confirm]', 'chosen-password-1');
    await page.click('main button[type=submit]');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('current password is wrong');
    await page.fill('input[name=current]', oneTime);
    await page.fill('input[name=password]', 'chosen-password-1');
    await page.fill('input[name=confirm]', 'chosen-password-1');
    await page.click('main button[type=submit]');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('password was changed');

    // Create a key: its secret is shown once.
    await page.fill('input[name=name]', 'mail servers');
    await page.selectOption('select[name=tier]', 'starter');
    await page.check('input[name=permissions][value="ip:read"]');
    await page.click('form[action="/dashboard/keys"] button[type=submit]');
    const secret = (await page.locator('#new-key').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^nrp_[A-Za-z0-9]{40}$/);
    await check(page, 'dashboard-key-created');
    for (let i = 0; i < 3; i++) {
      expect((await fetch(`${base}/v1/ip/8.8.8.8`, { headers: { 'x-api-key': secret } })).status).toBe(200);
    }
    await page.goto(`${base}/dashboard/keys`);
    expect(await page.content()).not.toContain(secret);
    const row = page.locator('tr', { hasText: 'mail servers' });
    await expect(row.locator('svg[role=img] desc').textContent()).resolves.toContain('3 requests in all');
    const axis = await row.locator('svg text').allTextContents();
    expect(axis).toEqual(expect.arrayContaining(['requests/day', '0', '5']));
    // Whole requests only: no 2.5 tick (issue 36).
    expect(axis).not.toContain('2.5');
    await check(page, 'dashboard-keys');

    // The keys table on a phone: one card per key, nothing wider than the screen.
    const small = await phone.newPage();
    await small.goto(`${base}/dashboard/login`);
    await small.fill('input[name=email]', 'first@example.test');
    await small.fill('input[name=password]', 'chosen-password-1');
    await Promise.all([small.waitForURL(`${base}/dashboard/keys`), small.click('button[type=submit]')]);
    await check(small, 'dashboard-keys-390px');

    // Revoke asks first; Cancel keeps the key; confirming revokes it and says so.
    await row.locator('a.danger').click();
    await check(page, 'dashboard-revoke-confirm');
    await page.click('text=Cancel, keep the key');
    expect((await fetch(`${base}/v1/ip/8.8.8.8`, { headers: { 'x-api-key': secret } })).status).toBe(200);
    await page.locator('tr', { hasText: 'mail servers' }).locator('a.danger').click();
    await Promise.all([page.waitForURL(/\/dashboard\/keys\?revoked=\d+$/), page.click('main button.danger')]);
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('"mail servers"');
    await check(page, 'dashboard-revoked');
    expect((await fetch(`${base}/v1/ip/8.8.8.8`, { headers: { 'x-api-key': secret } })).status).toBe(401);

    // The one-time password is spent; the chosen one signs in without a further change.
    await page.click('header button');
    await page.fill('input[name=email]', 'first@example.test');
    await page.fill('input[name=password]', oneTime);
    await page.click('button[type=submit]');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('Wrong email or password');
    await page.fill('input[name=email]', 'first@example.test');
    await page.fill('input[name=password]', 'chosen-password-1');
    await Promise.all([page.waitForURL(`${base}/dashboard/keys`), page.click('button[type=submit]')]);

    // An administrator's blocklist page (with a listing) passes the same checks, on the phone too.
    await page.goto(`${base}/dashboard/blocklist`);
    await check(page, 'dashboard-blocklist');
    await small.goto(`${base}/dashboard/blocklist`);
    await check(small, 'dashboard-blocklist-390px');
    await small.goto(`${base}/dashboard/password`);
    await check(small, 'dashboard-password-390px');
    await small.close();
    await page.close();
    // About 35 s of pages and axe checks on a quiet 2-core machine (2026-11-28).
  }, 120_000);
});
