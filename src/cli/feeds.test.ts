import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildFeedsDataset, writeFeedsFixture } from '../../test/helpers/feeds-pipeline.ts';
import { runNetrep } from '../../test/helpers/process.ts';
import { tempDir } from '../../test/helpers/stores.ts';
import { createManualClock } from '../core/clock.ts';
import { listFeedSnapshots, readFeedManifest } from '../feeds/index.ts';

const dataDir = tempDir('netrep-cli-feeds-');
const env = { NETREP_DATA_DIR: dataDir, NETREP_DATABASE_URL: '' };
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const lines = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));

describe('netrep feeds build', () => {
  it('builds what it can, says why it skipped the rest, then builds them once a dataset exists', async () => {
    const first = runNetrep(['feeds', 'build'], env);
    expect(first.status, first.stderr).toBe(2);
    const rows = lines(first.stdout);
    expect(rows.map((r) => [r[0], r[2]])).toEqual([
      ['tor_exits', 'skipped'],
      ['ai_crawlers', 'skipped'],
      ['vpn_proxy', 'skipped'],
      ['datacenter_ranges', 'skipped'],
      ['trap_confirmed', 'created'],
      ['asn_wide_blocked', 'skipped'],
    ]);
    expect(rows[0]?.[3]).toMatch(/netrep dataset build/);

    const from = path.join(dataDir, 'upstream');
    mkdirSync(from);
    writeFeedsFixture(from);
    // The dataset's own clock does not matter to the feeds: they are dated by the CLI's clock.
    await buildFeedsDataset(dataDir, from, createManualClock('2026-01-01T00:00:00Z'));
    const second = runNetrep(['feeds', 'build', '--feed', 'tor_exits', 'trap_confirmed'], env);
    expect(second.status, second.stderr).toBe(0);
    const [tor, trap] = lines(second.stdout);
    expect(tor?.[2]).toBe('created');
    expect(trap?.[2]).toBe('exists');
    const feeds = path.join(dataDir, 'feeds');
    const days = await listFeedSnapshots(feeds, 'tor_exits');
    expect(days).toHaveLength(1);
    const manifest = await readFeedManifest(feeds, 'tor_exits');
    expect(tor?.[3]).toBe(`${manifest?.row_count} rows sha256 ${manifest?.sha256}`);
    expect(manifest?.dataset_version).toBe(1);
  });

  it('refuses an unknown feed name', () => {
    const r = runNetrep(['feeds', 'build', '--feed', 'everything'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/unknown feed everything/);
  });
});
