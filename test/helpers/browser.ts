/** Headless Debian Chromium driven by playwright-core (no browser download). */
import fs from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = process.env.NETREP_TEST_CHROMIUM ?? '/usr/bin/chromium';

export function hasChromium(): boolean {
  const ok = fs.existsSync(CHROMIUM);
  if (!ok)
    process.stdout.write(
      `[skip] browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)\n`,
    );
  return ok;
}

export async function launchBrowser(): Promise<Browser> {
  return await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
