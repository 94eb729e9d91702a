/**
 * SpamAssassin's DNSEval rules against netrep's DNSBL zone (#37 item 1): the README's `.cf`
 * snippet, fed as is to the `spamassassin` command whose resolver is the running app's DNS
 * listener, checking messages whose Received chain hands them over from listed and unlisted
 * relays. Each run is a new process, so nothing is cached between runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/dnsbl-tools.ts';
import { readmeSnippet } from '../helpers/readme-snippet.ts';
import { type DnsblInstance, startDnsblInstance, ZONE } from './dnsbl-instance.ts';
import { toolsAvailable } from './required-tool.ts';
import { prepareSpamAssassin, type SpamAssassin } from './spamassassin-cli.ts';

const available = toolsAvailable('SpamAssassin integration', { spamassassin: 'spamassassin' });
const DEPLOY = path.resolve(import.meta.dirname, '../../deploy/spamassassin/netrep.cf');

/**
 * A message as our store (10.0.0.3) got it from our MX (10.0.0.2), which took it from `relay`;
 * `origin`, when given, handed it to `relay` before. `testPoint` fills the X-Test-Point header.
 */
function message(id: string, relay: string, options: { origin?: string; testPoint?: string } = {}): string {
  const literal = (ip: string) => (ip.includes(':') ? `IPv6:${ip}` : ip);
  return [
    'Received: from mx.example.com (mx.example.com [10.0.0.2])',
    `\tby store.example.com (Postfix) with ESMTP id S${id}; Fri, 27 Nov 2026 12:00:02 +0000 (UTC)`,
    `Received: from relay.example.org (relay.example.org [${literal(relay)}])`,
    `\tby mx.example.com (Postfix) with ESMTP id M${id}; Fri, 27 Nov 2026 12:00:01 +0000 (UTC)`,
    ...(options.origin
      ? [
          `Received: from client.example.org (client.example.org [${literal(options.origin)}])`,
          `\tby relay.example.org (Postfix) with ESMTP id R${id}; Fri, 27 Nov 2026 12:00:00 +0000 (UTC)`,
        ]
      : []),
    ...(options.testPoint ? [`X-Test-Point: ${options.testPoint}`] : []),
    'From: sender@example.org',
    'To: rcpt@example.com',
    'Subject: hello',
    `Message-ID: <${id}@example.org>`,
    'Date: Fri, 27 Nov 2026 12:00:00 +0000',
    '',
    'Hello.',
    '',
  ].join('\n');
}

const netrepTests = (tests: string[]) => tests.filter((t) => t.includes('NETREP'));

describe.skipIf(!available)('SpamAssassin check_rbl rules on the netrep zone', () => {
  let netrep: DnsblInstance;
  let sa: SpamAssassin;
  let tmp: ReturnType<typeof tempDir>;
  const snippet = readmeSnippet('spamassassin-cf');

  beforeAll(async () => {
    tmp = tempDir('netrep-spamassassin-');
    netrep = await startDnsblInstance();
    sa = prepareSpamAssassin(tmp.dir, {
      'netrep.cf': snippet,
      // Test-local: the resolver is netrep's DNS listener itself (an operator's reaches the zone
      // through a stub zone), taken as working without SpamAssassin's probe of public names;
      // our own network is 10/8, so the relay that handed the message to 10.0.0.2 is the last
      // external one. A test-only rule asks for the RFC 5782 §5 test points, which the snippet's
      // Received-based rules rightly never query (SpamAssassin skips private and loopback relays).
      'local.cf': [
        `dns_server 127.0.0.1:${netrep.dnsPort}`,
        'dns_available yes',
        'trusted_networks 10.0.0.0/8',
        'internal_networks 10.0.0.0/8',
        `header TEST_POINT_LISTED eval:check_rbl_headers('testpoint', '${ZONE}.', '127.0.0.2', 'X-Test-Point')`,
        'score TEST_POINT_LISTED 0.001',
        '',
      ].join('\n'),
    });
  });
  afterAll(async () => {
    await netrep?.close();
    tmp?.remove();
  });

  it('the README snippet names the zone the instance serves, is the shipped file and lints clean', async () => {
    expect(snippet).toContain(`'${ZONE}.'`);
    expect(fs.readFileSync(DEPLOY, 'utf8')).toContain(snippet);
    expect(await sa.lint()).not.toMatch(/warn|error/i);
  });

  it('listed relays hit with their return code and reason, unlisted ones do not; a delisting holds on the next run', async () => {
    await netrep.list({ ip: '192.0.2.10', type: 'spam', reason: 'snowshoe run' });
    await netrep.list({ ip: '198.51.100.20', type: 'phishing', reason: 'credential kit' });
    await netrep.list({ ip: '2001:db8::5', type: 'malware', reason: 'botnet c2' });
    const [spam, phishing, malware, clean, earlierHop, testPoint, notTestPoint] = await sa.check([
      message('1', '192.0.2.10'),
      message('2', '198.51.100.20'),
      message('3', '2001:db8::5'),
      message('4', '192.0.2.11'),
      // Only the last external relay counts: a listed client before it does not.
      message('5', '192.0.2.11', { origin: '192.0.2.10' }),
      message('6', '192.0.2.11', { testPoint: '127.0.0.2' }),
      message('7', '192.0.2.11', { testPoint: '127.0.0.1' }),
    ]);
    expect(netrepTests(spam?.tests ?? []), spam?.report).toEqual([
      'NETREP_REASON',
      'RCVD_IN_NETREP',
      'RCVD_IN_NETREP_SPAM',
    ]);
    expect(spam?.report).toContain('[192.0.2.10 listed in bl.netrep.test]');
    // The TXT text as the zone serves it, its link in angle brackets as SpamAssassin logs URLs.
    const quoted = async (ip: string) => `[${(await netrep.txt(ip)).replace(/(https?:\/\/\S+)/, '<$1>')}]`;
    expect(spam?.report).toContain(await quoted('192.0.2.10'));
    expect(spam?.report).toContain('[snowshoe run; <http://');
    expect(netrepTests(phishing?.tests ?? [])).toEqual([
      'NETREP_REASON',
      'RCVD_IN_NETREP',
      'RCVD_IN_NETREP_PHISHING',
    ]);
    expect(phishing?.report).toContain(await quoted('198.51.100.20'));
    expect(netrepTests(malware?.tests ?? []), malware?.report).toEqual([
      'NETREP_REASON',
      'RCVD_IN_NETREP',
      'RCVD_IN_NETREP_MALWARE',
    ]);
    expect(netrepTests(clean?.tests ?? [])).toEqual([]);
    expect(netrepTests(earlierHop?.tests ?? [])).toEqual([]);
    expect(testPoint?.tests).toContain('TEST_POINT_LISTED');
    expect(notTestPoint?.tests).not.toContain('TEST_POINT_LISTED');

    await netrep.delist('192.0.2.10');
    const [after] = await sa.check([message('8', '192.0.2.10')]);
    expect(netrepTests(after?.tests ?? [])).toEqual([]);
  }, 60_000);
});
