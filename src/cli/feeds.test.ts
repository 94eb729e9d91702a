/**
 * `netrep feeds build` on a SQLite data dir: builds that end normally run in process
 * (test/helpers/cli.ts: the same command, settings read from process.env, exit code from
 * process.exitCode); the refusal, which exits the process, runs through the real binary.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliAsBinary } from '../../test/helpers/cli.ts';
import { buildFeedsDataset, writeFeedsFixture } from '../../test/helpers/feeds-pipeline.ts';
import { runNetrep } from '../../test/helpers/process.ts';
import { tempDir } from '../../test/helpers/stores.ts';
import { createManualClock } from '../core/clock.ts';
import { listFeedSnapshots, readFeedManifest } from '../feeds/index.ts';
import { feedsExitCode, formatFeedResult, registerFeedsCommands } from './feeds.ts';

const dataDir = tempDir('netrep-cli-feeds-');
const env = { NETREP_DATA_DIR: dataDir, NETREP_DATABASE_URL: '' };
// The in-process builds read the same settings (test/helpers/file-setup.ts puts the environment
// back after the file).
beforeAll(() => {
  Object.assign(process.env, env);
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** `netrep feeds …` in process, answering as runNetrep does. */
function run(args: string[]) {
  return runCliAsBinary([registerFeedsCommands], args);
}

const lines = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));

describe('netrep feeds build', () => {
  it('builds what it can, says why it skipped the rest, then builds them once a dataset exists', async () => {
    const first = await run(['feeds', 'build']);
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
    const second = await run(['feeds', 'build', '--feed', 'tor_exits', 'trap_confirmed']);
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

describe('formatFeedResult and feedsExitCode', () => {
  const base = {
    feed: 'tor_exits',
    date: '2026-11-27',
    rowCount: 3,
    sha256: 'ab',
    reason: null,
    skippedRows: 0,
  } as const;

  it('prints rows and hash when built, the reason otherwise, and the invalid source rows', () => {
    expect(formatFeedResult({ ...base, status: 'created' })).toBe(
      'tor_exits\t2026-11-27\tcreated\t3 rows sha256 ab\n',
    );
    expect(formatFeedResult({ ...base, status: 'skipped', reason: 'no dataset yet' })).toBe(
      'tor_exits\t2026-11-27\tskipped\tno dataset yet\n',
    );
    expect(formatFeedResult({ ...base, status: 'exists', skippedRows: 2 })).toBe(
      'tor_exits\t2026-11-27\texists\t3 rows sha256 ab (2 invalid source rows skipped)\n',
    );
  });

  it('exits 1 when a feed failed, else 2 when one was skipped, else 0', () => {
    const r = (status: 'created' | 'skipped' | 'failed') => ({ ...base, status });
    expect(feedsExitCode([r('skipped'), r('failed')])).toBe(1);
    expect(feedsExitCode([r('created'), r('skipped')])).toBe(2);
    expect(feedsExitCode([r('created')])).toBe(0);
  });
});
