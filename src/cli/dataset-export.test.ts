/** `netrep dataset export` on a fixture snapshot: the file, its summary line, and its refusals. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AsnResponse, type CityResponse, Reader } from 'maxmind';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from '../../test/helpers/cli.ts';
import { systemClock } from '../core/clock.ts';
import { buildDataset } from '../dataset/index.ts';
import { registerDatasetExportCommand } from './dataset-export.ts';

const npmFixture = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../dataset/fixtures/npm-a');
let dir: string;

function run(...args: string[]): Promise<CliRun> {
  return runCli([(p) => registerDatasetExportCommand(p.command('dataset'))], ['dataset', ...args]);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'netrep-export-cli-'));
  process.env.NETREP_DATA_DIR = path.join(dir, 'data');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('netrep dataset export', () => {
  it('without a snapshot: one sentence, exit code 1, no file', async () => {
    const out = path.join(dir, 'none.mmdb');
    const r = await run('export', '--out', out);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/no dataset snapshot; run `netrep dataset build`/);
    expect(existsSync(out)).toBe(false);
  });

  it('writes the snapshot as a GeoLite2-City MMDB the maxmind reader opens, and says what it wrote', async () => {
    await buildDataset({ dataDir: path.join(dir, 'data'), npmDir: npmFixture, clock: systemClock });
    const out = path.join(dir, 'netrep.mmdb');
    const r = await run('export', '--format', 'mmdb', '--out', out);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^wrote .*netrep\.mmdb: dataset v1, \d+ networks, [\d.]+ MB in [\d.]+ s\n$/);
    // Not a terminal: no progress bar, nothing on stderr.
    expect(r.err).toBe('');
    const reader = new Reader<CityResponse & Partial<AsnResponse>>(readFileSync(out));
    expect(reader.metadata.databaseType).toBe('GeoLite2-City');
    expect(reader.get('8.8.8.8')).toMatchObject({
      country: { iso_code: 'US', names: { en: 'United States' } },
      autonomous_system_number: 15169,
      autonomous_system_organization: 'Google LLC',
      netrep: { is_tor_exit: false, threat: { level: 'low' } },
    });
    expect(reader.get('10.0.0.1')).toBeNull();
    // Written to a temp file, then renamed: nothing else is left beside it.
    expect(readdirSync(dir).filter((f) => f.includes('.mmdb'))).toEqual(['netrep.mmdb']);
  }, 120_000);

  it('on a terminal: a progress bar on stderr that reaches 100 %', async () => {
    const out = path.join(dir, 'tty.mmdb');
    Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    let r: CliRun;
    try {
      r = await run('export', '--out', out);
    } finally {
      Object.defineProperty(process.stderr, 'isTTY', { value: false, configurable: true });
    }
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/export \[.*\] 100% ETA/);
    expect(existsSync(out)).toBe(true);
  }, 120_000);

  it('an unknown format: exit code 2, no file', async () => {
    const out = path.join(dir, 'x.csv');
    const r = await run('export', '--format', 'csv', '--out', out);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown export format "csv" \(have: mmdb\)/);
    expect(existsSync(out)).toBe(false);
  });
});
