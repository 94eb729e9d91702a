/** The dashboard as a person uses it: Debian Chromium, real server, real store. */

import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { hasChromium, launchBrowser } from '../../../test/helpers/browser.ts';
import { REPO } from '../../../test/helpers/process.ts';

let t: TestApp;
let base: string;
let browser: Browser;
const ADMIN = { email: 'ops@example.test', password: 'admin-password-1' };
const MEMBER = { email: 'dev@example.test', password: 'member-password-1' };

async function signIn(page: Page, who: { email: string; password: string }) {
  await page.goto(`${base}/dashboard`);
  await page.fill('input[name=email]', who.email);
  await page.fill('input[name=password]', who.password);
  await Promise.all([page.waitForURL(`${base}/dashboard/keys`), page.click('button[type=submit]')]);
}

const skip = !hasChromium();

describe.skipIf(skip)('dashboard in Chromium', () => {
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    await t.app.services.accounts.createUser({ ...ADMIN, role: 'admin' });
    await t.app.services.accounts.createUser({ ...MEMBER, role: 'member' });
    base = await t.app.listen();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('rejects a wrong password and keeps pages behind sign-in', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${base}/dashboard/keys`);
    expect(page.url()).toBe(`${base}/dashboard/login`);
    expect(res?.status()).toBe(200);
    await page.fill('input[name=email]', ADMIN.email);
    await page.fill('input[name=password]', 'wrong-password');
    await page.click('button[type=submit]');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('Wrong email or password');
    await page.close();
  });

  it('a member creates a key (shown once), it works, usage appears, revoking stops it', async () => {
    const page = await browser.newPage();
    await signIn(page, MEMBER);
    // The dataset section says what the serving snapshot holds: here, none is loaded.
    await expect(page.locator('#dataset').textContent()).resolves.toContain('no dataset snapshot loaded yet');
    // Members are offered self-service tiers and no admin permission.
    expect(await page.locator('select[name=tier] option').allTextContents()).toEqual(['free', 'starter']);
    expect(await page.locator('input[name=permissions][value=admin]').count()).toBe(0);
    await page.fill('input[name=name]', 'mail servers');
    await page.selectOption('select[name=tier]', 'starter');
    await page.check('input[name=permissions][value="blocklist:read"]');
    await page.click('form[action="/dashboard/keys"] button[type=submit]');
    const secret = (await page.locator('#new-key').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^nrp_[A-Za-z0-9]{40}$/);
    await page.screenshot({
      path: path.join(REPO, 'test-artifacts/screenshots/dashboard-member-keys.png'),
      fullPage: true,
    });

    const api = await fetch(`${base}/v1/blocklist/stats`, { headers: { 'x-api-key': secret } });
    expect(api.status).toBe(200);
    // The secret is not shown again.
    await page.goto(`${base}/dashboard/keys`);
    expect(await page.content()).not.toContain(secret);
    const row = page.locator('tr', { hasText: 'mail servers' });
    await expect(row.textContent()).resolves.toContain('1 in 30 days');
    await expect(row.locator('svg[role=img] desc').textContent()).resolves.toContain('1 requests in all');
    await expect(row.textContent()).resolves.toContain('starter');

    // Revoke asks first (a page, no script): Cancel keeps the key, Revoke key revokes it and says so.
    await row.locator('a.danger').click();
    expect(page.url()).toMatch(/\/dashboard\/keys\/\d+\/revoke$/);
    await expect(page.locator('h1').textContent()).resolves.toBe('Revoke key "mail servers"?');
    await page.click('text=Cancel, keep the key');
    expect(await page.locator('tr', { hasText: 'mail servers' }).count()).toBe(1);
    await page.locator('tr', { hasText: 'mail servers' }).locator('a.danger').click();
    await Promise.all([page.waitForURL(/\/dashboard\/keys\?revoked=\d+$/), page.click('button.danger')]);
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Key "mail servers"');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('was revoked');
    expect(await page.locator('tr', { hasText: 'mail servers' }).count()).toBe(0);
    expect((await fetch(`${base}/v1/blocklist/stats`, { headers: { 'x-api-key': secret } })).status).toBe(
      401,
    );
    await page.close();
  });

  it('owners see only their own keys; forged or cross-owner posts do nothing', async () => {
    const { key: adminKey, info } = await t.app.services.accounts.createKey({
      ownerId: (await t.app.services.accounts.findUser(ADMIN.email))!.id,
      name: 'admin-only',
      tier: 'pro',
      permissions: ['admin'],
    });
    const page = await browser.newPage();
    await signIn(page, MEMBER);
    expect(await page.content()).not.toContain('admin-only');
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    // Another owner's key: not found for this member.
    const cross = await page.request.post(`${base}/dashboard/keys/${info.id}/revoke`, {
      form: { _csrf: csrf },
    });
    expect(cross.status()).toBe(404);
    // No CSRF token: bounced to sign-in, nothing created.
    const forged = await page.request.post(`${base}/dashboard/keys`, {
      form: { name: 'forged', tier: 'free', permissions: 'ip:read' },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(303);
    const keys = await t.app.services.accounts.listKeys();
    expect(keys.some((k) => k.name === 'forged')).toBe(false);
    expect((await fetch(`${base}/v1/blocklist/stats`, { headers: { 'x-api-key': adminKey } })).status).toBe(
      200,
    );
    await page.close();
  });

  it('an administrator sees every key, sets features and manages the blocklist', async () => {
    const memberId = (await t.app.services.accounts.findUser(MEMBER.email))!.id;
    const { info } = await t.app.services.accounts.createKey({
      ownerId: memberId,
      name: 'pool',
      tier: 'free',
      permissions: ['email:read'],
    });
    const page = await browser.newPage();
    await signIn(page, ADMIN);
    const row = page.locator(`tr[data-key-id="${info.id}"]`);
    await expect(row.textContent()).resolves.toContain(MEMBER.email);
    await row.locator('input[name=features][value=telemetry_ingest]').check();
    await Promise.all([
      page.waitForURL(`${base}/dashboard/keys`),
      row.locator('form[action$="/features"] button').click(),
    ]);
    expect((await t.app.services.accounts.keyInfo(info.id))?.features).toEqual(['telemetry_ingest']);

    await page.goto(`${base}/dashboard/blocklist`);
    await page.fill('input[name=ip]', '203.0.113.9');
    await page.selectOption('select[name=type]', 'phishing');
    await page.fill('input[name=reason]', 'credential phishing kit');
    await page.fill('input[name=expires_days]', '7');
    await page.click('form[action="/dashboard/blocklist/list"] button');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Listed 203.0.113.9');
    await page.screenshot({
      path: path.join(REPO, 'test-artifacts/screenshots/dashboard-admin-blocklist.png'),
      fullPage: true,
    });
    const check = (await (await fetch(`${base}/v1/public/blocklist/ip/203.0.113.9`)).json()) as {
      data: unknown;
    };
    expect(check.data).toMatchObject({
      listed: true,
      listing: { type: 'phishing', return_code: '127.0.0.4' },
    });
    await page.locator('tr', { hasText: '203.0.113.9' }).locator('button.danger').click();
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Delisted 203.0.113.9');
    await page.close();
  });

  it('password change: forged, hostile and malformed posts change nothing', async () => {
    const page = await browser.newPage();
    await signIn(page, MEMBER);
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const post = (form: Record<string, string>) =>
      page.request.post(`${base}/dashboard/password`, { form, maxRedirects: 0 });
    // No CSRF token: back to sign-in.
    const forged = await post({
      current: MEMBER.password,
      password: 'x-new-password',
      confirm: 'x-new-password',
    });
    expect(forged.status()).toBe(303);
    for (const [form, text] of [
      [{ current: MEMBER.password, password: 'y'.repeat(201), confirm: 'y'.repeat(201) }, 'at most 200'],
      [{ current: MEMBER.password, password: 'short', confirm: 'short' }, 'at least 12'],
      [{ current: MEMBER.password, password: 'qwerty123456', confirm: 'qwerty123456' }, 'common passwords'],
      [
        { current: '<script>alert(1)</script>', password: 'long-enough-1', confirm: 'long-enough-1' },
        'wrong',
      ],
      [{ current: MEMBER.password }, 'at least 12'],
    ] as const) {
      const res = await post({ _csrf: csrf, ...form });
      expect(res.status(), text).toBe(400);
      expect(res.headers()['content-type']).toContain('text/html');
      expect(await res.text()).toContain(text);
    }
    // The password is unchanged: it still signs in, and no change is asked for.
    expect(
      (await t.app.services.accounts.verifyLogin(MEMBER.email, MEMBER.password))?.mustChangePassword,
    ).toBe(false);
    // A revoke confirmation for a key that is not there, or not a number: 404 / 400, no 5xx.
    expect((await page.request.get(`${base}/dashboard/keys/999999/revoke`)).status()).toBe(404);
    expect((await page.request.get(`${base}/dashboard/keys/abc/revoke`)).status()).toBe(404);
    expect((await page.request.get(`${base}/dashboard/keys/${'9'.repeat(40)}/revoke`)).status()).toBe(400);
    await page.close();
  });

  it('members cannot open the blocklist page', async () => {
    const page = await browser.newPage();
    await signIn(page, MEMBER);
    const res = await page.goto(`${base}/dashboard/blocklist`);
    expect(res?.status()).toBe(403);
    await page.close();
  });
});
