import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from '../../test/helpers/cli.ts';
import { sharedDataPath, smallNpmDir } from '../../test/helpers/shared-data.ts';
import { registerDatasetCommands, verifyLine } from './dataset.ts';
import { registerLookupCommand } from './lookup.ts';

let server: Server;
let dataDir: string;
const requests: string[] = [];

function run(...args: string[]): Promise<CliRun> {
  return runCli([registerDatasetCommands, registerLookupCommand], args);
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'netrep-cli-'));
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const files: Record<string, string> = {
      '/torbulkexitlist': sharedDataPath('tor/torbulkexitlist.txt'),
      '/drop.txt': sharedDataPath('spamhaus/drop.txt'),
    };
    const file = files[req.url ?? ''];
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sourcesFile = path.join(dataDir, 'sources.json');
  writeFileSync(
    sourcesFile,
    JSON.stringify({
      'tor-bulk-exit-list': `${base}/torbulkexitlist`,
      'spamhaus-drop-text': `${base}/drop.txt`,
      'openai-gptbot': `${base}/missing.json`,
    }),
  );
  process.env.NETREP_DATA_DIR = dataDir;
  process.env.NETREP_DATASET_SOURCES = sourcesFile;
  // The update's build reads the small fixture CSVs (8.8.8.0/24 is Google's there too), not a
  // minute of the installed packages: what is tested is the update, not their import (#33).
  process.env.NETREP_DATASET_NPM_DIR = smallNpmDir(mkdtempSync(path.join(tmpdir(), 'netrep-cli-npm-')));
});

afterAll(() => {
  server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('netrep dataset and lookup commands', () => {
  it('list on an empty data dir, lookup without a dataset', async () => {
    expect((await run('dataset', 'list')).out).toMatch(/no dataset snapshots/);
    expect((await run('dataset', 'status')).out).toMatch(
      /^no dataset snapshot yet;[\s\S]*update: daily; no update recorded yet/,
    );
    const r = await run('lookup', '8.8.8.8');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/run `netrep dataset build`/);
  });

  it('update downloads only the configured sources from 127.0.0.1, then builds; lookup answers from it', async () => {
    const r = await run('dataset', 'update');
    expect(requests.sort()).toEqual(['/drop.txt', '/missing.json', '/torbulkexitlist']);
    expect(r.err).toMatch(/download openai-gptbot: failed, HTTP 404/);
    expect(r.err).toMatch(/downloaded 2\/3 sources/);
    expect(r.err).toMatch(/\[dataset\] done: dataset v1/);
    expect(r.out).toMatch(/^dataset v1 /);
    const tor = await run('lookup', '185.241.208.232');
    const body = JSON.parse(tor.out) as {
      data: { netrep: { is_tor_exit: boolean } };
      meta: { dataset_version: number };
    };
    expect(body.data.netrep.is_tor_exit).toBe(true);
    expect(body.meta.dataset_version).toBe(1);
    const google = JSON.parse((await run('lookup', ' 8.8.8.8 ')).out) as { data: Record<string, unknown> };
    expect(google.data).toMatchObject({
      ip: '8.8.8.8',
      asn: 15169,
      asn_name: 'Google LLC',
      country: 'US',
      rir: 'ARIN',
      connection_type: 'datacenter',
    });
    expect((await run('dataset', 'list')).out).toMatch(/^v1\t\S+\t\d+ sources\t\(latest\)\n$/);

    // status: the families v1 holds, the update's outcome, the failed source with its error.
    const status = (await run('dataset', 'status')).out;
    expect(status).toMatch(/^dataset v1, built \S+ \(\d+ s ago\)$/m);
    expect(status).toContain(
      'v1 holds 2 upstream source families (spamhaus, tor) and the bundled npm packages',
    );
    expect(status).toMatch(/^tor +1 +1174 +\d+ s$/m);
    expect(status).toMatch(
      /update: daily; last attempt \S+ partial \(1 of 3 downloads failed \(openai-gptbot\)\); 1 failed attempt in a row/,
    );
    expect(status).toMatch(/^openai-gptbot +bots +no +failed \S+: HTTP 404$/m);
    expect(status).toMatch(/^tor-bulk-exit-list +tor +yes \(1174 rows\) +ok \S+$/m);
    const json = JSON.parse((await run('dataset', 'status', '--json')).out) as {
      version: number;
      upstream: boolean;
      sources: { id: string; ok: boolean; error: string | null }[];
    };
    expect(json).toMatchObject({ version: 1, upstream: true });
    expect(json.sources).toContainEqual(
      expect.objectContaining({ id: 'openai-gptbot', ok: false, error: 'HTTP 404' }),
    );
  });

  it('rejects invalid input', async () => {
    for (const bad of ['1.2.3', '010.1.1.1', 'fe80::1%eth0', 'not-an-ip']) {
      const r = await run('lookup', bad);
      expect(r.code, bad).toBe(1);
      expect(r.err).toMatch(/^INVALID_IP/);
    }
    writeFileSync(path.join(dataDir, 'bad.json'), '{"nope":"http://127.0.0.1/"}');
    process.env.NETREP_DATASET_SOURCES = path.join(dataDir, 'bad.json');
    await expect(run('dataset', 'update')).rejects.toThrow(/unknown source id "nope"/);
  });
});

describe('verifyLine', () => {
  it('says ok with hashes, ok by size only, or broken and why', () => {
    const r = { version: 4, dir: '/d/v4', verified: true, problem: null };
    expect(verifyLine(r)).toBe('v4\tok: sizes and SHA-256 match the manifest\n');
    expect(verifyLine({ ...r, verified: false })).toBe(
      'v4\tok, unverified: built before file hashes (2026-11-27), sizes checked only\n',
    );
    expect(verifyLine({ ...r, problem: 'ipv4.bin: size differs' })).toBe(
      'v4\tbroken: ipv4.bin: size differs\n',
    );
  });
});
