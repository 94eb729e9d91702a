/**
 * nginx reads the MMDB export (#37 item 2): `netrep dataset export --format mmdb` (the real binary,
 * on the run's build of ../shared/data, once per run: test/helpers/datasets.ts) loaded by
 * Debian's libnginx-mod-http-geoip2 through the README's geoip2 block, unchanged but for the
 * file's path. The test's server trusts X-Forwarded-For from 127.0.0.1 (the realip module) so
 * that it can ask for any address, and sets the snippet's variables into response headers; for
 * sampled addresses (Tor exits, VPNs, proxies, clouds, AI crawlers, DROP listings, plain
 * networks, IPv4 and IPv6, addresses without a record) the headers equal the API's answer
 * (intel's lookup behind /v1/ip).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ParsedIp, parseIp } from '../../src/core/ip.ts';
import { seededRandom } from '../../src/core/random.ts';
import { formatAddr, loadSnapshot, NO_RECORD, type Snapshot } from '../../src/dataset/index.ts';
import { createIntel, type Intel, type IpAnswer } from '../../src/intel/index.ts';
import { seedDataset, sharedMmdbExport } from '../helpers/datasets.ts';
import { freePort, tempDir } from '../helpers/dnsbl-tools.ts';
import { REPO } from '../helpers/process.ts';
import { readmeSnippet } from '../helpers/readme-snippet.ts';
import { toolsAvailable } from './required-tool.ts';

const MODULE = '/usr/lib/nginx/modules/ngx_http_geoip2_module.so';
/** Where the README's snippet (and deploy/nginx/netrep-geoip2.conf) expects the export. */
const SNIPPET_PATH = '/var/lib/netrep/netrep.mmdb';

function moduleInstalled(): boolean {
  if (fs.existsSync(MODULE)) return true;
  const why = `${MODULE} missing (Debian libnginx-mod-http-geoip2)`;
  if (process.env.CI === 'true') throw new Error(`nginx geoip2: CI=true but ${why}; .ci/run installs it`);
  process.stdout.write(`[skip] nginx geoip2: ${why}; .ci/run installs it\n`);
  return false;
}

const available = toolsAvailable('nginx geoip2', { nginx: 'nginx-light' }) && moduleInstalled();

/** Response header ← the snippet's variable, and what the API says it is. */
const HEADERS: [header: string, variable: string, want: (a: IpAnswer | null) => string | undefined][] = [
  ['x-country', '$geoip2_country_code', (a) => a?.country ?? undefined],
  ['x-asn', '$geoip2_asn', (a) => (a?.asn == null ? undefined : String(a.asn))],
  ['x-org', '$geoip2_org', (a) => a?.asn_name ?? undefined],
  ['x-tor', '$netrep_tor', (a) => flag(a?.netrep.is_tor_exit)],
  ['x-proxy', '$netrep_proxy', (a) => flag(a?.netrep.is_proxy)],
  ['x-vpn', '$netrep_vpn', (a) => flag(a?.netrep.is_vpn)],
  ['x-datacenter', '$netrep_datacenter', (a) => flag(a?.netrep.is_datacenter)],
  ['x-ai-crawler', '$netrep_ai_crawler', (a) => flag(a?.netrep.is_ai_crawler)],
  ['x-cloud', '$netrep_cloud', (a) => a?.netrep.cloud_provider],
  ['x-connection-type', '$netrep_connection_type', (a) => a?.connection_type ?? undefined],
  ['x-threat-score', '$netrep_threat_score', (a) => (a ? String(a.threat.score) : '0')],
  ['x-threat-level', '$netrep_threat_level', (a) => a?.threat.level],
];

/** The module writes a boolean as 1 or 0; the snippet's default for an address without a record is 0. */
function flag(v: boolean | undefined): string {
  return v ? '1' : '0';
}

function nginxConf(dir: string, port: number, mmdb: string): string {
  const snippet = readmeSnippet('nginx-geoip2');
  expect(snippet).toContain(SNIPPET_PATH);
  const headers = HEADERS.map(([h, v]) => `      add_header ${h} ${v} always;`).join('\n');
  return `load_module ${MODULE};
daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${snippet.replace(SNIPPET_PATH, mmdb)}
  server {
    listen 127.0.0.1:${port};
    # The test asks for addresses through X-Forwarded-For (nginx's realip module).
    set_real_ip_from 127.0.0.1;
    real_ip_header X-Forwarded-For;
    location / {
${headers}
      return 204;
    }
  }
}
`;
}

/** The kind of fact an answer carries, so the sample holds every kind. */
function kindOf(a: IpAnswer | null): string {
  if (!a) return 'none';
  if (a.netrep.is_tor_exit) return 'tor';
  if (a.threat.explanation.some((e) => e.includes('DROP'))) return 'drop';
  if (a.netrep.is_proxy) return 'proxy';
  if (a.netrep.is_vpn) return 'vpn';
  if (a.netrep.is_ai_crawler) return 'ai';
  if (a.netrep.cloud_provider) return 'cloud';
  return 'plain';
}

function startOf(t: Snapshot['v4'], i: number): bigint {
  if (t.family === 4) return BigInt(t.starts[i] as number);
  let v = 0n;
  for (let k = 0; k < 4; k++) v = (v << 32n) | BigInt(t.starts[i * 4 + k] as number);
  return v;
}

/** Up to `per` interval starts of each kind and family (seeded), and a few addresses without a record. */
function sample(snapshot: Snapshot, lookup: (ip: string) => IpAnswer | null, per: number): string[] {
  const rand = seededRandom(20261127);
  const out: string[] = ['10.1.2.3', '192.0.2.1', '2001:db8::1'];
  for (const t of [snapshot.v4, snapshot.v6]) {
    const byKind = new Map<string, string[]>();
    for (let i = 0; i < t.size; i++) {
      if (t.recs[i] === NO_RECORD || rand() > 0.2) continue;
      const ip = formatAddr(t.family, startOf(t, i));
      const kind = kindOf(lookup(ip));
      const list = byKind.get(kind) ?? [];
      if (list.length < per) list.push(ip);
      byKind.set(kind, list);
    }
    for (const list of byKind.values()) out.push(...list);
  }
  return out;
}

function get(port: number, ip: string): Promise<http.IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: '/', headers: { 'X-Forwarded-For': ip } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers));
      },
    );
    req.on('error', reject);
  });
}

describe.skipIf(!available)('nginx geoip2 module reads the MMDB export', () => {
  let tmp: { dir: string; remove(): void };
  let snapshot: Snapshot;
  let intel: Intel;
  let nginx: ChildProcess | null = null;
  let port: number;
  let exportLine = '';

  beforeAll(async () => {
    tmp = tempDir('netrep-nginx-');
    const dataDir = path.join(tmp.dir, 'data');
    expect(await seedDataset(dataDir, 'shared')).toBe(1);
    snapshot = loadSnapshot(path.join(dataDir, 'datasets', 'v1'));
    intel = createIntel({ snapshot });
    // The run's export, written once by the binary for this file and export-mmdb.test.ts.
    const { file: mmdb, summary } = await sharedMmdbExport();
    exportLine = summary;
    port = await freePort();
    const conf = path.join(tmp.dir, 'nginx.conf');
    fs.writeFileSync(conf, nginxConf(tmp.dir, port, mmdb));
    const check = spawnSync('nginx', ['-t', '-p', tmp.dir, '-e', `${tmp.dir}/error.log`, '-c', conf], {
      encoding: 'utf8',
    });
    expect(check.stderr).toMatch(/test is successful/);
    nginx = spawn('nginx', ['-p', tmp.dir, '-e', `${tmp.dir}/error.log`, '-c', conf], { stdio: 'ignore' });
    for (let i = 0; ; i++) {
      const up = await get(port, '127.0.0.1').then(
        () => true,
        () => false,
      );
      if (up) break;
      if (i > 100)
        throw new Error(`nginx did not listen: ${fs.readFileSync(`${tmp.dir}/error.log`, 'utf8')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 900_000);

  afterAll(() => {
    nginx?.kill('SIGTERM');
    tmp?.remove();
  });

  it('the deployed file holds the README snippet', () => {
    const deployed = fs.readFileSync(path.join(REPO, 'deploy/nginx/netrep-geoip2.conf'), 'utf8');
    expect(deployed).toContain(readmeSnippet('nginx-geoip2').trim());
  });

  /** The headers nginx sets for `ip` that differ from the API's answer, as lines. */
  async function differences(ip: string, answer: IpAnswer | null): Promise<string[]> {
    const headers = await get(port, ip);
    // An empty variable adds no header: a field the answer does not have.
    return HEADERS.filter(([header, , want]) => headers[header] !== want(answer)).map(
      ([header, , want]) => `${ip} ${header}: nginx ${headers[header]} API ${want(answer)}`,
    );
  }

  it('for sampled addresses the headers equal the API answer (ASN, organisation, country, flags)', async () => {
    const lookup = (ip: string) => intel.lookup(parseIp(ip) as ParsedIp);
    const ips = sample(snapshot, lookup, 12);
    const wrong: string[] = [];
    const kinds = new Map<string, number>();
    for (const ip of ips) {
      const a = lookup(ip);
      const answer = a && !a.bogon ? a : null;
      kinds.set(kindOf(answer), (kinds.get(kindOf(answer)) ?? 0) + 1);
      wrong.push(...(await differences(ip, answer)));
    }
    process.stdout.write(
      `nginx geoip2: ${exportLine}; ${ips.length} addresses: ${JSON.stringify([...kinds])}\n`,
    );
    expect(wrong.slice(0, 8)).toEqual([]);
    for (const kind of ['tor', 'drop', 'proxy', 'vpn', 'ai', 'cloud', 'plain', 'none'])
      expect(kinds.get(kind) ?? 0, kind).toBeGreaterThan(2);
  }, 120_000);
});
