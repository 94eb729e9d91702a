/**
 * /readyz's `dataset` part on the real app (issue #30): a snapshot from the npm packages only is
 * named as such; one built with upstream files lists their families and age; the last update's
 * outcome shows per source, a failed download with its error.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { datasetFixture } from '../../../test/helpers/intel-app.ts';
import { sharedDataPath } from '../../../test/helpers/shared-data.ts';
import { createTestStore, type TestStoreHandle, tempDir } from '../../../test/helpers/stores.ts';
import {
  buildDataset,
  EMPTY_UPDATE_STATUS,
  recordUpdateAttempt,
  writeUpdateStatus,
} from '../../dataset/index.ts';

let t: TestApp | undefined;
let handle: TestStoreHandle | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await t?.close();
  await handle?.cleanup();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  t = undefined;
  handle = undefined;
});

type Dataset = {
  version: number;
  upstream: boolean;
  summary: string;
  age_seconds: number;
  families: { family: string; sources: number; rows: number; age_seconds: number }[];
  update: Record<string, unknown>;
  sources: { id: string; ok: boolean | null; error: string | null; in_snapshot: boolean }[];
};
const readyz = async (app: TestApp) => {
  const res = await app.app.http.inject({ url: '/readyz' });
  expect(res.statusCode).toBe(200);
  return res.json().data.dataset as Dataset;
};

describe('/readyz dataset status', () => {
  it('names a snapshot built only from the bundled npm packages', async () => {
    handle = await createTestStore('sqlite');
    await buildDataset({
      dataDir: handle.dataDir,
      clock: () => Date.parse('2026-06-15T06:00:00Z'),
      npmDir: datasetFixture('npm-a'),
    });
    t = await createTestApp('sqlite', { handle });
    const d = await readyz(t);
    expect(d).toMatchObject({ version: 1, upstream: false, age_seconds: 6 * 3600, sources: [] });
    expect(d.summary).toMatch(/^v1 is built only from the bundled npm packages .*no upstream source yet/);
    expect(d.families.map((f) => f.family)).toEqual(['bundled']);
    expect(d.update).toMatchObject({
      schedule: 'off',
      last_attempt_at: null,
      last_result: null,
      next_attempt_at: null,
    });
  });

  it('lists the upstream families with their age and the last download of each source', async () => {
    handle = await createTestStore('sqlite');
    // Upstream files laid out as in shared/data: the real Tor exit list and Spamhaus DROP.
    const from = tempDir('netrep-from-');
    dirs.push(from);
    for (const rel of ['tor/exit-addresses', 'spamhaus/drop.txt']) {
      mkdirSync(path.dirname(path.join(from, rel)), { recursive: true });
      copyFileSync(sharedDataPath(rel), path.join(from, rel));
    }
    const builtAt = Date.parse('2026-06-15T00:00:00Z');
    await buildDataset({
      dataDir: handle.dataDir,
      from,
      clock: () => builtAt,
      npmDir: datasetFixture('npm-a'),
    });
    writeUpdateStatus(
      handle.dataDir,
      recordUpdateAttempt(EMPTY_UPDATE_STATUS, {
        at: builtAt,
        result: 'partial',
        version: 1,
        error: '1 of 3 downloads failed (aws)',
        downloads: [
          { id: 'tor-exit-addresses', ok: true, bytes: 1 },
          { id: 'spamhaus-drop-text', ok: true, bytes: 1 },
          { id: 'aws', ok: false, bytes: 0, error: 'HTTP 500' },
        ],
      }),
    );
    t = await createTestApp('sqlite', { handle });
    const d = await readyz(t);
    expect(d.upstream).toBe(true);
    expect(d.summary).toBe(
      'v1 holds 2 upstream source families (spamhaus, tor) and the bundled npm packages',
    );
    expect(d.families.map((f) => [f.family, f.age_seconds])).toEqual([
      ['bundled', 12 * 3600],
      ['spamhaus', 12 * 3600],
      ['tor', 12 * 3600],
    ]);
    expect(d.families.find((f) => f.family === 'tor')?.rows).toBeGreaterThan(1000);
    expect(d.update).toMatchObject({
      last_result: 'partial',
      last_error: '1 of 3 downloads failed (aws)',
      consecutive_failures: 1,
    });
    expect(d.sources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'tor-exit-addresses', ok: true, in_snapshot: true }),
        expect.objectContaining({ id: 'spamhaus-drop-text', ok: true, in_snapshot: true }),
        expect.objectContaining({ id: 'aws', ok: false, error: 'HTTP 500', in_snapshot: false }),
      ]),
    );
  });
});
