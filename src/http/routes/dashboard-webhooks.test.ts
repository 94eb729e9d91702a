/** Settings → Webhooks and Settings → Saved IPs as a person uses them: Debian Chromium, real server, real store, a receiver on 127.0.0.1. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { hasChromium, launchBrowser } from '../../../test/helpers/browser.ts';

let t: TestApp;
let base: string;
let browser: Browser;
let receiver: http.Server;
let hookUrl: string;
const MEMBER = { email: 'hooks@example.test', password: 'member-password-1' };

async function signIn(page: Page) {
  await page.goto(`${base}/dashboard`);
  await page.fill('input[name=email]', MEMBER.email);
  await page.fill('input[name=password]', MEMBER.password);
  await Promise.all([page.waitForURL(`${base}/dashboard/keys`), page.click('button[type=submit]')]);
  await page.goto(`${base}/dashboard/webhooks`);
}

describe.skipIf(!hasChromium())('dashboard webhooks in Chromium', () => {
  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end());
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    t = await createTestApp('sqlite', { config: { webhookAllowPrivate: true, workers: false } });
    await t.app.services.accounts.createUser({ ...MEMBER, role: 'member' });
    base = await t.app.listen();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((r) => receiver?.close(r));
  });

  it('creates a webhook (secret shown once), sends a test ping, shows the delivery, deletes it', async () => {
    const page = await browser.newPage();
    await signIn(page);
    await page.fill('input[name=url]', hookUrl);
    await page.click('form[action="/dashboard/webhooks"] button[type=submit]');
    const secret = (await page.locator('#new-secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    await page.goto(`${base}/dashboard/webhooks`);
    expect(await page.content()).not.toContain(secret);
    await page.click('form[action$="/test"] button');
    await expect(page.locator('[role=status]').textContent()).resolves.toContain('Test ping');
    await t.app.webhookWorker.runOnce();
    await page.goto(`${base}/dashboard/webhooks`);
    await expect(page.locator('section[data-hook-id] table').textContent()).resolves.toContain('success');
    page.once('dialog', (d) => void d.accept());
    await page.click('form[action$="/delete"] button');
    await page.waitForURL(`${base}/dashboard/webhooks`);
    expect(await page.locator('section[data-hook-id]').count()).toBe(0);
    // A refused target is explained on the page.
    await page.fill('input[name=url]', 'ftp://example.test/');
    await page.click('form[action="/dashboard/webhooks"] button[type=submit]');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('http or https');
    await page.close();
  });

  it('Saved IPs is a page of its own in the menu: saves an address with its state, refuses a bad one, removes it', async () => {
    const page = await browser.newPage();
    await signIn(page);
    await Promise.all([
      page.waitForURL(`${base}/dashboard/saved-ips`),
      page.click('nav a:text-is("Saved IPs")'),
    ]);
    await expect(page.locator('nav a[aria-current=page]').textContent()).resolves.toBe('Saved IPs');
    await t.app.services.blocklist.list({ ip: '45.33.32.156', type: 'spam', reason: 'test' });
    await page.fill('form[action="/dashboard/saved-ips"] input[name=ip]', '45.33.32.156');
    await page.fill('form[action="/dashboard/saved-ips"] input[name=label]', 'relay <b>1</b>');
    await Promise.all([
      page.waitForURL(`${base}/dashboard/saved-ips`),
      page.click('form[action="/dashboard/saved-ips"] button'),
    ]);
    const row = page.locator('tr', { hasText: '45.33.32.156' });
    await expect(row.textContent()).resolves.toContain('relay <b>1</b>');
    await expect(row.textContent()).resolves.toContain('spam');
    await page.fill('form[action="/dashboard/saved-ips"] input[name=ip]', '1.2.3.256');
    await page.click('form[action="/dashboard/saved-ips"] button');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('invalid IP address');
    await page.click('form[action="/dashboard/saved-ips/remove"] button');
    await page.waitForURL(`${base}/dashboard/saved-ips`);
    await expect(page.locator('main').textContent()).resolves.toContain('No saved addresses');
    await page.close();
  });
});

describe('dashboard webhooks without a browser', () => {
  it('sends the signed-out to sign in and refuses a form without its CSRF token', async () => {
    const app = await createTestApp('sqlite', { config: { workers: false } });
    try {
      const page = await app.app.http.inject({ url: '/dashboard/webhooks' });
      expect([page.statusCode, page.headers.location]).toEqual([303, '/dashboard/login']);
      await app.app.services.accounts.createUser({ ...MEMBER, role: 'member' });
      const login = await app.app.http.inject({
        method: 'POST',
        url: '/dashboard/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `email=${encodeURIComponent(MEMBER.email)}&password=${MEMBER.password}`,
      });
      const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
      // GET /dashboard/saved-ips is a page (it answered 405 before issue 36), signed out a sign-in.
      const saved = await app.app.http.inject({ url: '/dashboard/saved-ips', headers: { cookie } });
      expect(saved.statusCode).toBe(200);
      expect(saved.headers['content-type']).toContain('text/html');
      expect(saved.body).toContain('<h1>Settings → Saved IPs</h1>');
      expect(saved.body).toContain('<a href="/dashboard/saved-ips" aria-current="page">Saved IPs</a>');
      const out = await app.app.http.inject({ url: '/dashboard/saved-ips' });
      expect([out.statusCode, out.headers.location]).toEqual([303, '/dashboard/login']);
      const forged = await app.app.http.inject({
        method: 'POST',
        url: '/dashboard/saved-ips',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'ip=45.33.32.156',
      });
      expect([forged.statusCode, forged.headers.location]).toEqual([303, '/dashboard/login']);
      const bad = await app.app.http.inject({
        method: 'POST',
        url: '/dashboard/webhooks/abc/delete',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: '_csrf=x',
      });
      expect(bad.statusCode).toBe(400);
      expect((await app.app.services.webhooks.savedIps(1, 10, 0)).total).toBe(0);
    } finally {
      await app.close();
    }
  });
});

describe('dashboard webhooks before a one-time password is changed', () => {
  it('the page and its forms lead to the password change and change nothing', async () => {
    const app = await createTestApp('sqlite', { config: { webhookAllowPrivate: true, workers: false } });
    try {
      const { user, password } = await app.app.services.accounts.createUser({
        email: 'first@example.test',
        role: 'member',
      });
      expect(user.mustChangePassword).toBe(true);
      const login = await app.app.http.inject({
        method: 'POST',
        url: '/dashboard/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `email=first%40example.test&password=${encodeURIComponent(password)}`,
      });
      const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
      const token = decodeURIComponent(cookie.split('=')[1] ?? '');
      const csrf = (await app.app.services.accounts.session(token))?.csrf ?? '';
      expect(csrf).not.toBe('');
      const page = await app.app.http.inject({ url: '/dashboard/webhooks', headers: { cookie } });
      expect([page.statusCode, page.headers.location]).toEqual([303, '/dashboard/password']);
      for (const [url, payload] of [
        ['/dashboard/saved-ips', `_csrf=${csrf}&ip=45.33.32.156`],
        ['/dashboard/webhooks', `_csrf=${csrf}&url=${encodeURIComponent('http://127.0.0.1:9/hook')}`],
      ] as const) {
        const res = await app.app.http.inject({
          method: 'POST',
          url,
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          payload,
        });
        expect([res.statusCode, res.headers.location], url).toEqual([303, '/dashboard/password']);
      }
      expect((await app.app.services.webhooks.savedIps(user.id, 10, 0)).total).toBe(0);
      expect(await app.app.services.webhooks.hooks(user.id)).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
