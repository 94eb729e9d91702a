/**
 * Postfix's reject_rbl_client on netrep's DNSBL zone (#37 item 5): the README's main.cf line in a
 * real Postfix whose smtpd asks the running app's DNS listener, and SMTP sessions from loopback
 * client addresses: the RFC 5782 §5 test points, a listing made through the API, an unlisted
 * address, a custom return code outside the line's range, and a delisting.
 */

import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/dnsbl-tools.ts';
import { readmeSnippet } from '../helpers/readme-snippet.ts';
import { type DnsblInstance, startDnsblInstance, ZONE } from './dnsbl-instance.ts';
import { type PostfixServer, startPostfix } from './postfix-server.ts';
import { toolsAvailable } from './required-tool.ts';

const execFileP = promisify(execFile);
const DEPLOY = path.resolve(import.meta.dirname, '../../deploy/postfix/main.cf');

function runnable(): boolean {
  if (!toolsAvailable('Postfix integration', { postfix: 'postfix', postconf: 'postfix' })) return false;
  if (process.getuid?.() === 0) return true;
  if (process.env.CI === 'true')
    throw new Error('Postfix integration: CI=true but the tests do not run as root');
  process.stdout.write('[skip] Postfix integration: needs root (chroot, the postfix user, port 53)\n');
  return false;
}
const available = runnable();

// Test-local settings after the snippet: our network is 10/8, so every loopback client below is
// a stranger the restriction applies to; mail for example.com is taken (any local part), so an
// accepted RCPT answers 250 rather than a relay refusal; and each smtpd process serves one
// session: smtpd keeps every DNSBL answer for its process's life (smtpd_check.c: the cache
// "persists across SMTP sessions"), up to max_use = 100 sessions or max_idle = 100 s by default,
// so a fresh process is what sees a delisting next (docs/operations.md, "Mail filters").
const TEST_LOCAL = `compatibility_level = 3.6
max_use = 1
myhostname = mx.example.test
inet_interfaces = 127.0.0.1
mynetworks = 10.0.0.0/8
mydestination = example.com
local_recipient_maps =
`;

describe.skipIf(!available)('Postfix reject_rbl_client on the netrep zone', () => {
  let netrep: DnsblInstance;
  let postfix: PostfixServer;
  let tmp: ReturnType<typeof tempDir>;
  const snippet = readmeSnippet('postfix-main-cf');

  beforeAll(async () => {
    tmp = tempDir('netrep-postfix-');
    // The C library's resolver only speaks to port 53: netrep listens there on a loopback
    // address of its own, picked at random so that no other listener on port 53 is in the way.
    const nameserver = `127.53.${crypto.randomInt(1, 255)}.${crypto.randomInt(1, 255)}`;
    netrep = await startDnsblInstance(`${nameserver}:53`);
    postfix = await startPostfix({ dir: tmp.dir, mainCf: snippet + TEST_LOCAL, nameserver });
  });
  afterAll(async () => {
    await postfix?.stop();
    await netrep?.close();
    tmp?.remove();
  });

  it('the README line is the shipped one and postconf reads it back unchanged', async () => {
    expect(snippet).toContain(`reject_rbl_client ${ZONE}=127.0.0.[2..4]`);
    expect(fs.readFileSync(DEPLOY, 'utf8')).toContain(snippet);
    const { stdout } = await execFileP('postconf', ['-c', postfix.config, '-n', 'smtpd_client_restrictions']);
    expect(stdout).toBe(snippet);
  });

  it('rejects the RFC 5782 test point 127.0.0.2 with its TXT reason and takes 127.0.0.1', async () => {
    const listed = await postfix.rcptFrom('127.0.0.2');
    expect(listed, postfix.log()).toEqual({
      code: 554,
      text: `5.7.1 Service unavailable; Client host [127.0.0.2] blocked using ${ZONE}; ${await netrep.txt('127.0.0.2')}`,
    });
    expect(listed.text).toContain('RFC 5782 test entry');
    expect((await postfix.rcptFrom('127.0.0.1')).code).toBe(250);
  });

  it('rejects a client listed through the API, takes an unlisted one and one outside the range, then the delisted one', async () => {
    // Loopback addresses stand in for remote clients: they are the ones a test can connect from.
    await netrep.list({ ip: '127.0.0.3', type: 'spam', reason: 'snowshoe run' });
    await netrep.list({ ip: '127.0.0.5', type: 'spam', reason: 'trap hits', return_code: '127.0.0.42' });
    const listed = await postfix.rcptFrom('127.0.0.3');
    expect(listed.code).toBe(554);
    expect(listed.text).toBe(
      `5.7.1 Service unavailable; Client host [127.0.0.3] blocked using ${ZONE}; ${await netrep.txt('127.0.0.3')}`,
    );
    expect(listed.text).toContain('; snowshoe run; http://');
    expect((await postfix.rcptFrom('127.0.0.4')).code).toBe(250);
    // 127.0.0.42 is outside the line's =127.0.0.[2..4]: the README says to widen it for custom codes.
    expect((await postfix.rcptFrom('127.0.0.5')).code).toBe(250);
    await netrep.delist('127.0.0.3');
    // The C library keeps no answer cache, and each SMTP connection gets a fresh smtpd process.
    expect((await postfix.rcptFrom('127.0.0.3')).code).toBe(250);
  });
});
