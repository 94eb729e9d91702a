/**
 * The real tools on files made by the real pipeline (upstream files → importers → dataset
 * build → worker snapshot → HTTP download), not on hand-assembled rows: what an operator
 * pipes into nginx, Caddy, BIND, iptables and Cloudflare.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { cloudflareExpressions, csvNetworks } from '../../test/helpers/feeds-parse.ts';
import { buildFeedsDataset, writeFeedsFixture } from '../../test/helpers/feeds-pipeline.ts';
import { runTool, tempDir, writeText } from '../../test/helpers/feeds-tools.ts';
import { CLOUDFLARE_MAX_EXPRESSION } from './index.ts';
import type { FeedFormat, FeedName } from './types.ts';

const tmp = tempDir('pipeline');
let t: TestApp;
let key = '';

beforeAll(async () => {
  t = await createTestApp('sqlite', { clockStart: '2026-07-01T03:00:00Z' });
  key = await t.key({ tier: 'enterprise', permissions: ['feeds:read'] });
  const from = path.join(t.handle.dataDir, 'upstream');
  mkdirSync(from);
  writeFeedsFixture(from);
  await buildFeedsDataset(t.handle.dataDir, from, t.clock);
  const results = await t.app.feedsWorker.runOnce();
  expect(results.filter((r) => r.status === 'skipped')).toEqual([]);
});
afterAll(async () => {
  await t?.close();
  tmp.cleanup();
});

async function download(feed: FeedName, format: FeedFormat): Promise<string> {
  const res = await t.app.http.inject({
    method: 'GET',
    url: `/v1/feeds/${feed}/download/${format}`,
    headers: { 'x-api-key': key },
  });
  expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
  return res.body;
}

function heredoc(script: string, end: string): string {
  const start = script.indexOf(`<<'${end}'\n`);
  const stop = script.indexOf(`\n${end}\n`, start);
  if (start === -1 || stop === -1) throw new Error(`no ${end} section`);
  return script.slice(script.indexOf('\n', start) + 1, stop + 1);
}

const FEEDS: FeedName[] = ['asn_wide_blocked', 'datacenter_ranges'];

describe.each(FEEDS)('real tools on the pipeline-built %s feed', (feed) => {
  it('has IPv4 and IPv6 networks', async () => {
    const networks = csvNetworks(await download(feed, 'csv'));
    expect(networks.some((n) => n.includes(':'))).toBe(true);
    expect(networks.some((n) => n.includes('.'))).toBe(true);
  });

  it('nginx -t accepts the deny block inside a server block', async () => {
    const include = writeText(tmp.dir, `${feed}.nginx.conf`, await download(feed, 'nginx'));
    const conf = writeText(
      tmp.dir,
      `${feed}-nginx.conf`,
      `pid ${tmp.dir}/nginx.pid;\nerror_log ${tmp.dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n` +
        `  server {\n    listen 127.0.0.1:18080;\n    include ${include};\n  }\n}\n`,
    );
    const r = runTool('nginx', ['-t', '-q', '-p', tmp.dir, '-c', conf]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('caddy adapt --validate accepts a Caddyfile importing the snippet', async () => {
    const snippet = writeText(tmp.dir, `${feed}.caddy`, await download(feed, 'caddy'));
    const caddyfile = writeText(
      tmp.dir,
      `${feed}.Caddyfile`,
      `http://localhost:18081 {\n\timport ${snippet}\n\trespond "ok"\n}\n`,
    );
    const r = runTool('caddy', ['adapt', '--config', caddyfile, '--adapter', 'caddyfile', '--validate'], {
      env: { XDG_DATA_HOME: tmp.dir, XDG_CONFIG_HOME: tmp.dir, HOME: tmp.dir },
    });
    expect(r.status, r.stderr).toBe(0);
  });

  it('named-checkzone loads the RPZ zone', async () => {
    const zone = writeText(tmp.dir, `${feed}.rpz.zone`, await download(feed, 'bind'));
    const r = runTool('named-checkzone', ['-k', 'fail', 'rpz.netrep.test', zone]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/OK/);
  });

  it('the iptables script passes sh -n and both restore --test runs', async () => {
    const script = await download(feed, 'iptables');
    const sh = runTool('sh', ['-n', writeText(tmp.dir, `${feed}.sh`, script)]);
    expect(sh.status, sh.stderr).toBe(0);
    const v4 = runTool('iptables-restore', ['--test'], { input: heredoc(script, 'NETREP_IPV4_RULES') });
    expect(v4.status, v4.stderr).toBe(0);
    const v6 = runTool('ip6tables-restore', ['--test'], { input: heredoc(script, 'NETREP_IPV6_RULES') });
    expect(v6.status, v6.stderr).toBe(0);
  });

  it('every cloudflare expression is well formed, under 4096 characters, and together they list the feed', async () => {
    const text = await download(feed, 'cloudflare');
    const lists = cloudflareExpressions(text);
    for (const line of text.split('\n').filter(Boolean))
      expect(line.length).toBeLessThanOrEqual(CLOUDFLARE_MAX_EXPRESSION);
    expect(lists.flat()).toEqual(csvNetworks(await download(feed, 'csv')));
  });
});
