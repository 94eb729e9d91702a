/**
 * `netrep lookup` and `netrep summarize` over a small snapshot (fixture ASN rows plus the real
 * Tor bulk exit list): in process for the formats, through the real binary for stdin and the
 * list program main.ts runs them with.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from '../../test/helpers/cli.ts';
import { BIN } from '../../test/helpers/process.ts';
import { sharedDataPath } from '../../test/helpers/shared-data.ts';
import { systemClock } from '../core/clock.ts';
import { buildDataset } from '../dataset/index.ts';
import { registerLookupCommand } from './lookup.ts';
import { registerSummarizeCommand } from './summarize.ts';

const npmFixture = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../dataset/fixtures/npm-a');
const TOR_EXIT = '185.241.208.232';
let dir: string;
let dataDir: string;
let listFile: string;

function run(...args: string[]): Promise<CliRun> {
  return runCli([registerLookupCommand, registerSummarizeCommand], args);
}

function binary(args: string[], input?: string): { stdout: string; stderr: string; status: number | null } {
  return spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, NETREP_DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 120_000,
    ...(input === undefined ? {} : { input }),
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'netrep-lookup-'));
  dataDir = path.join(dir, 'data');
  const from = path.join(dir, 'upstream');
  mkdirSync(path.join(from, 'tor'), { recursive: true });
  symlinkSync(sharedDataPath('tor/torbulkexitlist.txt'), path.join(from, 'tor/torbulkexitlist.txt'));
  await buildDataset({ dataDir, from, npmDir: npmFixture, clock: systemClock });
  listFile = path.join(dir, 'list.txt');
  writeFileSync(
    listFile,
    [
      '# a comment line',
      '8.8.8.8',
      '',
      `  ${TOR_EXIT}  # exit relay`,
      '1.0.0.1',
      'nope',
      '10.1.2.3',
      '9.9.9.9',
      '2a00:1450::1',
      '1.2.3',
    ].join('\n'),
  );
  process.env.NETREP_DATA_DIR = dataDir;
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('netrep lookup', () => {
  it('json: one line per address, each the body GET /v1/ip would send', async () => {
    const r = await run('lookup', '--format', 'json', '8.8.8.8', TOR_EXIT);
    expect(r.code).toBe(0);
    const lines = r.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      data: { ip: '8.8.8.8', asn: 15169, asn_name: 'Google LLC' },
      meta: { dataset_version: 1 },
    });
    expect(lines[1].data.netrep.is_tor_exit).toBe(true);
  });

  it('--file: comments and blank lines skipped, invalid lines reported where they are, exit code 1', async () => {
    const r = await run('lookup', '--format', 'json', '--file', listFile);
    expect(r.code).toBe(1);
    const lines = r.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.data?.ip ?? l.error.code)).toEqual([
      '8.8.8.8',
      TOR_EXIT,
      '1.0.0.1',
      'INVALID_IP',
      '10.1.2.3',
      'NOT_FOUND',
      '2a00:1450::1',
      'INVALID_IP',
    ]);
    expect(lines[3].error).toEqual({
      code: 'INVALID_IP',
      message: '"nope" is not an IP address',
      input: 'line 6',
    });
    expect(lines[5].error).toMatchObject({ code: 'NOT_FOUND', input: 'line 8' });
    expect(lines[4].data.bogon).toBe(true);
    expect(r.err).toBe(
      'INVALID_IP: "nope" is not an IP address (line 6)\nINVALID_IP: "1.2.3" is not an IP address (line 10)\n',
    );
  });

  it('csv: a header, one row per valid address, RFC 4180 quoting', async () => {
    const r = await run('lookup', '--format', 'csv', '1.0.0.1', '9.9.9.9', 'bad');
    expect(r.code).toBe(1);
    const rows = r.out.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^ip,prefix,asn,asn_name,country,rir,connection_type,bogon,is_datacenter,/);
    expect(rows[1]).toMatch(/^1\.0\.0\.1,1\.0\.0\.0\/24,13335,"Cloudflare, Inc\.",/);
    expect(rows[2]).toBe(`9.9.9.9${','.repeat(18)}`);
    expect(rows).toHaveLength(3);
    expect(rows[1]?.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/)).toHaveLength(19);
  });

  it('table: a header row and one aligned row per address', async () => {
    const r = await run('lookup', '--format', 'table', '8.8.8.8', TOR_EXIT, '10.0.0.1');
    const rows = r.out.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^IP\s+PREFIX\s+ASN\s+ORGANIZATION\s+CC\s+RIR\s+TYPE\s+FLAGS\s+THREAT$/);
    expect(rows[1]).toMatch(
      /^8\.8\.8\.8\s+8\.8\.8\.0\/24\s+AS15169\s+Google LLC\s+US\s+ARIN\s+datacenter\s+cloud:Google\s+5 low$/,
    );
    expect(rows[2]).toMatch(/AS200651\s+Flokinet Ltd.*\btor\b/);
    expect(rows[3]).toMatch(/^10\.0\.0\.1\s+10\.0\.0\.0\/8\s+-\s+\(bogon\)/);
    // Aligned: every row's PREFIX column starts where the header's does.
    const at = rows[0]?.indexOf('PREFIX');
    for (const row of rows.slice(1)) expect(row.slice(0, at).trimEnd()).not.toMatch(/\s{2}/);
  });

  it('without addresses: a usage sentence and exit code 2', async () => {
    const r = await run('lookup');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/give addresses as arguments, or --file PATH/);
  });
});

describe('netrep summarize', () => {
  it('counts by ASN, country, connection type, flag and threat level', async () => {
    const r = await run('summarize', '--json', '--file', listFile, '2a00:1450::2');
    expect(r.code).toBe(1);
    const s = JSON.parse(r.out);
    expect(s).toMatchObject({ total: 9, invalid: 2, not_found: 1, bogon: 1, answered: 5 });
    expect(s.asn).toEqual([
      { asn: 15169, name: 'Google LLC', count: 3 },
      { asn: 13335, name: 'Cloudflare, Inc.', count: 1 },
      { asn: 200651, name: 'Flokinet Ltd', count: 1 },
    ]);
    expect(s.flags.is_tor_exit).toBe(1);
    expect(s.flags.is_datacenter).toBe(4);
    expect(s.threat_level).toEqual({ low: 4, medium: 1, high: 0, critical: 0 });
    expect(s.country).toEqual([
      { country: 'IE', count: 2 },
      { country: 'AU', count: 1 },
      { country: 'RO', count: 1 },
      { country: 'US', count: 1 },
    ]);
  });

  it('table: a headline, then ranked sections cut at --top', async () => {
    const r = await run('summarize', '--top', '1', '--file', listFile);
    expect(r.out).toMatch(/^dataset v1: 8 addresses, 4 answered, 1 without a record, 1 bogon, 2 invalid\n/);
    expect(r.out).toMatch(
      /By ASN\n {2}2\s+50\.0%\s+AS15169 Google LLC\n {2}… 2 more \(--top 0 shows all\)\n/,
    );
    expect(r.out).toMatch(/Flags\n(.*\n)* {2}1\s+25\.0%\s+is_tor_exit\n/);
  });
});

describe('the netrep binary', () => {
  it('reads stdin with --file - and answers lookup and summarize', () => {
    const r = binary(['lookup', '--format', 'csv', '--file', '-'], `8.8.8.8\n${TOR_EXIT}\n`);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(3);
    const s = binary(['summarize', '--json', '--file', '-'], 'not-an-ip\n8.8.8.8\n');
    expect(s.status).toBe(1);
    expect(JSON.parse(s.stdout)).toMatchObject({ total: 2, invalid: 1, answered: 1 });
    expect(s.stderr).toBe('INVALID_IP: "not-an-ip" is not an IP address (line 1)\n');
  });

  it('lists lookup and summarize in the full program help', () => {
    const r = binary(['--help']);
    expect(r.stdout).toMatch(/\blookup\b.*\n(.*\n)*.*\bsummarize\b/);
  });
});
