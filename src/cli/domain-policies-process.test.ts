/**
 * `netrep domain check` as a process (issue 38): the MTA-STS policy fetched the way production
 * fetches it, on port 443 with Node's certificate checks, from a real node:https server on
 * 127.0.0.39 whose self-signed certificate the process trusts through NODE_EXTRA_CA_CERTS, with
 * NETREP_MTA_STS_ALLOW_LOOPBACK; without the setting, the same check connects to nothing.
 * Binding port 443 needs the right to (root or CAP_NET_BIND_SERVICE); without it the test skips.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../test/helpers/dns-guard.ts';
import { startZoneServer, type ZoneRecord, type ZoneServer } from '../../test/helpers/dns-zone-server.ts';
import { runNetrepAsync } from '../../test/helpers/process.ts';

const ADDRESS = '127.0.0.39';
const txt = (data: string): ZoneRecord => ({ type: 'TXT', data });

let zone: ZoneServer;
let server: https.Server | null = null;
let caFile = '';
let connections = 0;

beforeAll(async () => {
  zone = await startZoneServer({
    'sts-process.com': [
      { type: 'MX', data: { preference: 10, exchange: 'mx.sts-process.com' } },
      txt('v=spf1 -all'),
    ],
    'mx.sts-process.com': [{ type: 'A', data: '192.0.2.1' }],
    '_dmarc.sts-process.com': [txt('v=DMARC1; p=reject')],
    '_mta-sts.sts-process.com': [txt('v=STSv1; id=1')],
    'mta-sts.sts-process.com': [{ type: 'A', data: ADDRESS }],
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netrep-mta-sts-cli-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'k.pem',
      '-out',
      'c.pem',
    ].concat([
      '-days',
      '30',
      '-subj',
      '/CN=mta-sts.sts-process.com',
      '-addext',
      'subjectAltName=DNS:mta-sts.sts-process.com',
    ]),
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  caFile = path.join(dir, 'c.pem');
  const s = https.createServer(
    { key: fs.readFileSync(path.join(dir, 'k.pem')), cert: fs.readFileSync(caFile) },
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('version: STSv1\nmode: enforce\nmx: mx.sts-process.com\nmax_age: 604800\n');
    },
  );
  s.on('connection', () => {
    connections++;
  });
  const bound = await new Promise<boolean>((resolve) => {
    s.once('error', () => resolve(false));
    s.listen(443, ADDRESS, () => resolve(true));
  });
  server = bound ? s : null;
});
afterAll(async () => {
  if (server) await new Promise((resolve) => server?.close(resolve));
  await zone.close();
});

describe('netrep domain check fetches the MTA-STS policy on port 443', () => {
  it('with the test setting and NODE_EXTRA_CA_CERTS: the policy; without the setting: no connection', async (ctx) => {
    if (!server) ctx.skip();
    const env = { NETREP_DNS_SERVERS: zone.servers.join(','), NODE_EXTRA_CA_CERTS: caFile };
    const allowed = await runNetrepAsync(['domain', 'check', 'sts-process.com', '--json'], {
      ...env,
      NETREP_MTA_STS_ALLOW_LOOPBACK: 'true',
    });
    expect(allowed.stderr).toBe('');
    const answer = JSON.parse(allowed.stdout);
    expect(answer.mta_sts).toMatchObject({ status: 'found', is_valid: true, unmatched_mx: [] });
    expect(answer.mta_sts.policy).toMatchObject({
      address: ADDRESS,
      fetched: true,
      mode: 'enforce',
      max_age: 604800,
    });
    expect(connections).toBe(1);
    const refused = await runNetrepAsync(['domain', 'check', 'sts-process.com'], env);
    expect(refused.stdout).toContain(
      `! policy: fetching the policy from mta-sts.sts-process.com refused: ${ADDRESS} is loopback address space`,
    );
    expect(connections).toBe(1);
  }, 120_000);
});
