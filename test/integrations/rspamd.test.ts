/**
 * rspamd's RBL module against netrep's DNSBL zone (#37 item 1): the README's `local.d/rbl.conf`
 * snippet, fed as is to a real rspamd whose resolver is the running app's DNS listener; messages
 * scanned with `rspamc` as if relayed (`-i`, what the MTA's milter passes) from listed and
 * unlisted addresses. rspamd 3.4's RBL module asks for A records only, so the listing's TXT
 * reason has no place in its answer; the SpamAssassin test checks the TXT side.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/dnsbl-tools.ts';
import { readmeSnippet } from '../helpers/readme-snippet.ts';
import { type DnsblInstance, startDnsblInstance, ZONE } from './dnsbl-instance.ts';
import { toolsAvailable } from './required-tool.ts';
import { type Rspamd, startRspamd } from './rspamd-daemon.ts';

const available = toolsAvailable('rspamd integration', { rspamd: 'rspamd', rspamc: 'rspamd' });
const DEPLOY = path.resolve(import.meta.dirname, '../../deploy/rspamd/local.d/rbl.conf');

const MESSAGE = [
  'From: sender@example.org',
  'To: rcpt@example.com',
  'Subject: hello',
  'Message-ID: <1@example.org>',
  'Date: Fri, 27 Nov 2026 12:00:00 +0000',
  '',
  'Hello.',
  '',
].join('\r\n');

// Test-local: the snippet's rule rightly skips loopback relays (rspamd's exclude_local), so a
// second rule on the same zone that does not lets the test ask for the RFC 5782 §5 test points
// through rspamd.
const TEST_POINT_RULE = `rbls {
  netrep_test_points {
    rbl = "${ZONE}";
    checks = ["from"];
    exclude_local = false;
    exclude_private_ips = false;
    symbol = "TEST_POINT_OTHER";
    returncodes { TEST_POINT_LISTED = "127.0.0.2"; }
  }
}
`;

const netrepSymbols = (symbols: Record<string, string[]>) =>
  Object.keys(symbols).filter((s) => s.startsWith('NETREP'));

describe.skipIf(!available)('rspamd RBL module on the netrep zone', () => {
  let netrep: DnsblInstance;
  let rspamd: Rspamd;
  let tmp: ReturnType<typeof tempDir>;
  const snippet = readmeSnippet('rspamd-rbl');

  beforeAll(async () => {
    tmp = tempDir('netrep-rspamd-');
    netrep = await startDnsblInstance();
    // Test-local: rspamd's resolver is netrep's DNS listener itself; an operator's resolver
    // reaches the zone through a stub zone (README), which changes nothing rspamd sees.
    rspamd = await startRspamd({
      dir: tmp.dir,
      rblConf: snippet,
      extraRblConf: TEST_POINT_RULE,
      nameserver: `127.0.0.1:${netrep.dnsPort}`,
    });
  });
  afterAll(async () => {
    await rspamd?.stop();
    await netrep?.close();
    tmp?.remove();
  });

  it('the README snippet names the zone the instance serves and is the shipped local.d file', () => {
    expect(snippet).toContain(`rbl = "${ZONE}";`);
    expect(fs.readFileSync(DEPLOY, 'utf8')).toContain(snippet);
  });

  it("keeps the zone alive: rspamd's 127.0.0.1 probe gets NXDOMAIN (RFC 5782 §5)", async () => {
    // rbl.lua registers a monitor on 1.0.0.127.<zone> expecting NXDOMAIN; any other answer
    // ("likely DNS spoofing") would switch the rule off after three probes.
    const probe = /dns callback for bl\.netrep\.test in [\d.]+: (.*)/;
    const deadline = Date.now() + 10_000;
    while (!probe.test(rspamd.log()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(probe.exec(rspamd.log())?.[1], rspamd.log()).toBe('no records with this name');
    expect(rspamd.log()).not.toMatch(/DNS spoofing|disable object/);
  });

  it('a listed relay gets the symbol of its return code, an unlisted one none', async () => {
    await netrep.list({ ip: '192.0.2.10', type: 'spam', reason: 'snowshoe run' });
    await netrep.list({ ip: '198.51.100.20', type: 'phishing', reason: 'credential kit' });
    await netrep.list({ ip: '2001:db8::5', type: 'malware', reason: 'botnet c2' });
    await netrep.list({ ip: '203.0.113.9', type: 'spam', reason: 'trap hits', return_code: '127.0.0.42' });

    const spam = await rspamd.scan(MESSAGE, '192.0.2.10');
    expect(spam.symbols.NETREP_SPAM, rspamd.log()).toEqual(['192.0.2.10:from']);
    expect(netrepSymbols(spam.symbols)).toEqual(['NETREP_SPAM']);
    expect((await rspamd.scan(MESSAGE, '198.51.100.20')).symbols.NETREP_PHISHING).toEqual([
      '198.51.100.20:from',
    ]);
    expect(netrepSymbols((await rspamd.scan(MESSAGE, '2001:db8::5')).symbols)).toEqual(['NETREP_MALWARE']);
    // A return code the snippet does not name: the rule's own symbol, with the code as option.
    expect((await rspamd.scan(MESSAGE, '203.0.113.9')).symbols.NETREP_LISTED).toEqual([
      '203.0.113.9:from:127.0.0.42',
    ]);
    expect(netrepSymbols((await rspamd.scan(MESSAGE, '192.0.2.11')).symbols)).toEqual([]);
    expect(netrepSymbols((await rspamd.scan(MESSAGE, '2001:db8::6')).symbols)).toEqual([]);
  });

  it('a delisting is honoured on the next scan', async () => {
    await netrep.list({ ip: '192.0.2.30', type: 'spam', reason: 'listed, then delisted' });
    expect(netrepSymbols((await rspamd.scan(MESSAGE, '192.0.2.30')).symbols)).toEqual(['NETREP_SPAM']);
    await netrep.delist('192.0.2.30');
    // rspamd 3.4's resolver (librdns) keeps no answer cache: every scan's lookup reaches the
    // nameserver, here netrep itself. Behind a caching resolver the old answer lives for at most
    // the zone's 60 s TTL (docs/operations.md, "Mail filters").
    expect(netrepSymbols((await rspamd.scan(MESSAGE, '192.0.2.30')).symbols)).toEqual([]);
  });

  it('the RFC 5782 §5 test points: 127.0.0.2 is listed, 127.0.0.1 is not', async () => {
    const listed = await rspamd.scan(MESSAGE, '127.0.0.2');
    expect(listed.symbols.TEST_POINT_LISTED).toEqual(['127.0.0.2:from']);
    const unlisted = await rspamd.scan(MESSAGE, '127.0.0.1');
    expect(Object.keys(unlisted.symbols).filter((s) => s.startsWith('TEST_POINT'))).toEqual([]);
    // The snippet's own rule skips loopback relays, as a production filter should.
    expect(netrepSymbols(listed.symbols)).toEqual([]);
  });
});
