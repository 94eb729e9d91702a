/**
 * `netrep lookup --extended` in every format (issue 36 item 5), over a snapshot of the fixture
 * ASN rows with the DB-IP city file of the npm package: json lines carry the extended answer,
 * csv adds its documented columns (the same count on every row, a row without a record
 * included), the table adds PLACE, RPKI and REPUTATION; the real binary agrees.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from '../../test/helpers/cli.ts';
import { BIN } from '../../test/helpers/process.ts';
import { smallNpmDir } from '../../test/helpers/shared-data.ts';
import { systemClock } from '../core/clock.ts';
import { buildDataset } from '../dataset/index.ts';
import { registerLookupCommand } from './lookup.ts';
import { EXTENDED_CSV_COLUMNS } from './lookup-extended.ts';

let dir: string;
let dataDir: string;

const run = (...args: string[]): Promise<CliRun> => runCli([registerLookupCommand], args);

/** RFC 4180 fields of one line. */
function fields(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/(?:^|,)("(?:[^"]|"")*"|[^,]*)/g)) out.push(m[1] ?? '');
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'netrep-lookup-ext-'));
  dataDir = path.join(dir, 'data');
  await buildDataset({ dataDir, npmDir: smallNpmDir(dir), clock: systemClock });
  process.env.NETREP_DATA_DIR = dataDir;
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('netrep lookup --extended', () => {
  it('json: each line the extended answer, geolocation and reputation included', async () => {
    const r = await run('lookup', '--extended', '--format', 'json', '8.8.8.8');
    expect(r.code).toBe(0);
    const line = JSON.parse(r.out.trim()) as { data: Record<string, unknown> };
    expect(line.data).toMatchObject({ ip: '8.8.8.8', organization: 'Google LLC' });
    expect(line.data).toHaveProperty('geolocation');
    expect(line.data).toHaveProperty('asn_reputation');
    expect(line.data).toHaveProperty('provenance');
  });

  it('csv: the plain columns then the extended ones, on every row', async () => {
    const plain = await run('lookup', '--format', 'csv', '8.8.8.8');
    const r = await run('lookup', '--extended', '--format', 'csv', '8.8.8.8', '9.9.9.9', '10.1.2.3');
    expect(r.code).toBe(0);
    const [head, ...rows] = r.out.trimEnd().split('\n');
    const plainHead = plain.out.split('\n')[0] ?? '';
    expect(head).toBe(`${plainHead},${EXTENDED_CSV_COLUMNS.join(',')}`);
    const names = (head ?? '').split(',');
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(fields(row), row).toHaveLength(names.length);
    const google = Object.fromEntries(names.map((n, i) => [n, fields(rows[0] ?? '')[i]]));
    expect(google).toMatchObject({ ip: '8.8.8.8', organization: 'Google LLC', geo_country: 'US' });
    expect(google.geo_primary_country).toBe('US');
    expect(Number(google.latitude)).not.toBeNaN();
    // The coordinate as DB-IP published it: no float32 noise.
    expect(Number(google.latitude).toPrecision(7)).toBe(
      Number(Number(google.latitude).toPrecision(7)).toPrecision(7),
    );
    expect((google.latitude ?? '').length).toBeLessThan(10);
    expect(rows[1]).toBe(`9.9.9.9${','.repeat(names.length - 1)}`);
  });

  it('table: PLACE, RPKI and REPUTATION columns', async () => {
    const r = await run('lookup', '--extended', '--format', 'table', '8.8.8.8', '10.1.2.3');
    expect(r.code).toBe(0);
    const [head, google, bogon] = r.out.trimEnd().split('\n');
    expect(head).toMatch(/THREAT\s+PLACE\s+RPKI\s+REPUTATION$/);
    expect(google).toMatch(/5 low\s+\S.*US\s+\S+\s+-$/);
    expect(bogon).toMatch(/\(bogon\).*-\s+-\s+-$/);
  });

  it('the real binary: --extended with --format csv keeps the extra columns', () => {
    const r = spawnSync(process.execPath, [BIN, 'lookup', '--extended', '--format', 'csv', '8.8.8.8'], {
      env: { ...process.env, NETREP_DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const [head, row] = r.stdout.trimEnd().split('\n');
    expect(head).toContain(`,${EXTENDED_CSV_COLUMNS.join(',')}`);
    expect(fields(row ?? '')).toHaveLength((head ?? '').split(',').length);
    expect(row).toContain('Google LLC');
  });
});
