/**
 * The domain tool page's MTA-STS, TLS-RPT and BIMI sections in Debian Chromium through
 * playwright-core against the real app and a real zone server on 127.0.0.1 (issue 38): the
 * sections render with their findings, at 1280 and 390 px, each with an axe-core audit, a
 * screenshot in test-artifacts/screenshots/ and no horizontal overflow.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { axeProblems } from '../../test/helpers/axe.ts';
import { hasChromium, launchBrowser } from '../../test/helpers/browser.ts';
import { startZoneServer, type ZoneRecord, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { REPO } from '../../test/helpers/process.ts';

const SHOTS = path.join(REPO, 'test-artifacts/screenshots');
const txt = (data: string): ZoneRecord => ({ type: 'TXT', data });

let server: ZoneServer;
let t: TestApp;
let base: string;
let browser: Browser;

describe.skipIf(!hasChromium())('the domain tool page: MTA-STS, TLS-RPT and BIMI', () => {
  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    server = await startZoneServer({
      'brand-mail.com': [
        { type: 'MX', data: { preference: 10, exchange: 'mx.brand-mail.com' } },
        txt('v=spf1 -all'),
      ],
      'mx.brand-mail.com': [{ type: 'A', data: '192.0.2.1' }],
      '_dmarc.brand-mail.com': [txt('v=DMARC1; p=none; rua=mailto:d@brand-mail.com')],
      '_mta-sts.brand-mail.com': [txt('v=STSv1; id=20261128')],
      'mta-sts.brand-mail.com': [{ type: 'A', data: '10.1.2.3' }],
      '_smtp._tls.brand-mail.com': [txt('v=TLSRPTv1; rua=mailto:tls@brand-mail.com')],
      'default._bimi.brand-mail.com': [txt('v=BIMI1; l=https://brand-mail.com/logo.svg')],
    });
    t = await createTestApp('sqlite', { config: { dnsServers: server.servers } });
    base = await t.app.listen();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await server?.close();
  });

  it('renders the three sections with their findings and advice', async () => {
    for (const [name, width, height] of [
      ['tool-domain-policies', 1280, 900],
      ['tool-domain-policies-390px', 390, 844],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height }, isMobile: width < 500 });
      const page = await context.newPage();
      const res = await page.goto(`${base}/tools/domain?domain=brand-mail.com`);
      expect(res?.status()).toBe(200);
      await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
      expect(await axeProblems(page), `${name}: axe`).toEqual([]);
      const scroll = (await page.evaluate('document.documentElement.scrollWidth')) as number;
      expect(scroll, `${name}: page width`).toBeLessThanOrEqual(width);
      const mtaSts = (await page.locator('section[aria-labelledby="mta-sts-h"]').textContent()) ?? '';
      expect(mtaSts).toContain('v=STSv1; id=20261128');
      expect(mtaSts).toContain(
        'Error: policy: fetching the policy from mta-sts.brand-mail.com refused: 10.1.2.3 is private address space',
      );
      const tlsRpt = (await page.locator('section[aria-labelledby="tls-rpt-h"]').textContent()) ?? '';
      expect(tlsRpt).toContain('mailto:tls@brand-mail.com');
      expect(tlsRpt).toContain('No problems found.');
      const bimi = (await page.locator('section[aria-labelledby="bimi-h"]').textContent()) ?? '';
      expect(bimi).toContain('BIMI needs DMARC at enforcement');
      expect(bimi).toContain('Error: DMARC is not at enforcement');
      await context.close();
    }
  });
});
