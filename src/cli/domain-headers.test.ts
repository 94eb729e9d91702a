/**
 * `netrep domain check` against a real DNS server on 127.0.0.1 (the loopback zone server), and
 * `netrep headers analyze` on a hand-made message, hops enriched from a fixture snapshot.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from '../../test/helpers/cli.ts';
import '../../test/helpers/dns-guard.ts';
import { startZoneServer, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { systemClock } from '../core/clock.ts';
import { buildDataset } from '../dataset/index.ts';
import { registerDomainCommands } from './domain.ts';
import { registerHeadersCommands } from './headers.ts';

const npmFixture = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../dataset/fixtures/npm-a');
let dir: string;
let zone: ZoneServer;
let message: string;

function run(...args: string[]): Promise<CliRun> {
  return runCli([registerDomainCommands, registerHeadersCommands], args);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'netrep-cli-tools-'));
  zone = await startZoneServer({
    'good-mail.com': [
      { type: 'MX', data: { preference: 10, exchange: 'mx.good-mail.com' } },
      { type: 'TXT', data: 'v=spf1 ip4:192.0.2.0/24 -all' },
    ],
    'mx.good-mail.com': [{ type: 'A', data: '192.0.2.1' }],
    '_dmarc.good-mail.com': [{ type: 'TXT', data: 'v=DMARC1; p=reject; rua=mailto:d@good-mail.com' }],
    'two-spf.com': [
      { type: 'TXT', data: 'v=spf1 -all' },
      { type: 'TXT', data: 'v=spf1 ~all' },
    ],
  });
  process.env.NETREP_DNS_SERVERS = zone.servers.join(',');
  process.env.NETREP_DATA_DIR = path.join(dir, 'data');
  await buildDataset({ dataDir: path.join(dir, 'data'), npmDir: npmFixture, clock: systemClock });
  message = path.join(dir, 'message.eml');
  writeFileSync(
    message,
    [
      'Received: from mx.example.org (mx.example.org [8.8.8.8]) by mail.good-mail.com with ESMTPS id abc; Mon, 23 Nov 2026 10:00:05 +0000',
      'Received: from laptop (laptop [192.168.1.5]) by mx.example.org with ESMTPSA id def; Mon, 23 Nov 2026 10:00:00 +0000',
      'Authentication-Results: mail.good-mail.com; spf=pass smtp.mailfrom=example.org; dkim=pass header.d=example.org header.s=sel1; dmarc=pass header.from=example.org',
      'DKIM-Signature: v=1; a=rsa-sha256; d=example.org; s=sel1; h=from:to:subject; bh=YWJj; b=ZGVm',
      'From: A <a@example.org>',
      'To: b@good-mail.com',
      'Subject: hello',
      '',
      'body text: Received: not a header',
    ].join('\r\n'),
  );
}, 120_000);

afterAll(async () => {
  await zone.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('netrep domain check', () => {
  it('prints a report: grade, one line per record with its findings, recommendations, DNS use', async () => {
    const r = await run('domain', 'check', 'good-mail.com', '--selector', 'sel1');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^good-mail\.com: grade [A-F][+-]? \(score \d+\/100\)\n/);
    expect(r.out).toMatch(/^MX {6}ok {4}mx\.good-mail\.com \(10\) 192\.0\.2\.1$/m);
    expect(r.out).toMatch(/^SPF {5}ok {4}v=spf1 ip4:192\.0\.2\.0\/24 -all \(0 of 10 DNS lookups\)$/m);
    expect(r.out).toMatch(/^DKIM {4}-- {4}sel1: no key$/m);
    expect(r.out).toMatch(/^DMARC {3}ok {4}p=reject \(\w+\), reports to mailto:d@good-mail\.com$/m);
    expect(r.out).toMatch(/\n\d+ DNS lookups in \d+ ms\n$/);
  });

  it('says what is true of two SPF records, and --json gives the API answer', async () => {
    const r = await run('domain', 'check', 'two-spf.com', '--selector', 'sel1');
    expect(r.out).toMatch(/^SPF {5}FAIL {2}2 v=spf1 records \(RFC 7208 allows one\)$/m);
    const j = JSON.parse((await run('domain', 'check', 'two-spf.com', '--json', '--selector', 'sel1')).out);
    expect(j).toMatchObject({ domain: 'two-spf.com', spf: { record_count: 2, is_valid: false } });
  });

  it('an invalid domain is one line and exit code 1', async () => {
    const r = await run('domain', 'check', 'not a domain');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^INVALID_DOMAIN: /);
  });
});

describe('netrep headers analyze', () => {
  it('prints the hops in delivery order with delays and enrichment, then authentication', async () => {
    const r = await run('headers', 'analyze', '--file', message);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Received chain \(2 hops, first hop first\)\n/);
    expect(r.out).toMatch(
      / {2}1\. laptop 192\.168\.1\.5 -> mx\.example\.org .*\n {2}2\. mx\.example\.org 8\.8\.8\.8 -> mail\.good-mail\.com .* \+5s\n {5}AS15169 Google LLC, US/,
    );
    expect(r.out).toMatch(/^ {2}DKIM {3}pass \(d=example\.org, s=sel1\)$/m);
    expect(r.out).toMatch(/^ {2}DMARC {2}pass$/m);
  });

  it('--json gives the API answer; a message without headers is MISSING_HEADERS', async () => {
    const j = JSON.parse((await run('headers', 'analyze', '--json', '--file', message)).out);
    expect(j.received_chain).toHaveLength(2);
    expect(j.received_chain[1]).toMatchObject({ from_ip: '8.8.8.8', asn: 15169 });
    const empty = path.join(dir, 'empty.eml');
    writeFileSync(empty, '\n\nonly a body\n');
    const r = await run('headers', 'analyze', '--file', empty);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^MISSING_HEADERS: /);
  });
});
