import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realFeedRows } from '../../test/helpers/feeds-real-data.ts';
import { runTool, tempDir } from '../../test/helpers/feeds-tools.ts';
import { feedFileName } from './catalog.ts';
import { listFeedSnapshots, readFeedManifest, writeFeedSnapshot } from './snapshot.ts';
import { FEED_FORMATS, type FeedName, type FeedRow } from './types.ts';

const tmp = tempDir('snapshot');
afterAll(tmp.cleanup);

/** Name -> SHA-256 of every file of a snapshot (comparing digests is byte-identity, and fast). */
function snapshotFiles(dir: string, feed: FeedName, date: string): Record<string, string> {
  const out: Record<string, string> = {};
  const d = path.join(dir, feed, date);
  for (const name of readdirSync(d).sort()) {
    out[name] = createHash('sha256')
      .update(readFileSync(path.join(d, name)))
      .digest('hex');
  }
  return out;
}

const write = (dir: string, feed: FeedName, date: string, rows: Iterable<unknown> | AsyncIterable<unknown>) =>
  writeFeedSnapshot({ dir, feed, date, rows, generatedAt: `${date}T00:05:00.000Z`, datasetVersion: 3 });

/** Rows that fail the test if anything reads them. */
function untouchable(): Iterable<FeedRow> {
  return {
    [Symbol.iterator]: () => {
      throw new Error('rows of an existing day must not be read');
    },
  };
}

describe('writeFeedSnapshot', () => {
  it('writes eight files and a manifest whose sha256 is sha256sum of the csv', async () => {
    const dir = path.join(tmp.dir, 'a');
    const { manifest, created } = await write(
      dir,
      'datacenter_ranges',
      '2026-01-02',
      realFeedRows('datacenter_ranges'),
    );
    expect(created).toBe(true);
    expect(manifest.row_count).toBe(51318);
    const d = path.join(dir, 'datacenter_ranges', '2026-01-02');
    const csv = path.join(d, feedFileName('datacenter_ranges', 'csv'));
    const sum = runTool('sha256sum', [csv]).stdout.split(' ')[0];
    expect(manifest.sha256).toBe(sum);
    for (const format of FEED_FORMATS) {
      const bytes = readFileSync(path.join(d, feedFileName('datacenter_ranges', format)));
      expect(manifest.files[format]).toEqual({
        path: `/v1/feeds/datacenter_ranges/download/${format}`,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        bytes: bytes.length,
      });
    }
    expect(JSON.parse(readFileSync(path.join(d, 'manifest.json'), 'utf8'))).toEqual(manifest);
    expect(statSync(d).mode & 0o777).toBe(0o755);
    expect(readdirSync(path.join(dir, 'datacenter_ranges'))).toEqual(['2026-01-02']);
  });

  it('never rewrites a day: a second write returns the same manifest and byte-identical files', async () => {
    const dir = path.join(tmp.dir, 'b');
    const first = await write(dir, 'tor_exits', '2026-01-02', realFeedRows('tor_exits'));
    const before = snapshotFiles(dir, 'tor_exits', '2026-01-02');
    const second = await write(dir, 'tor_exits', '2026-01-02', untouchable());
    expect(second).toEqual({ manifest: first.manifest, created: false });
    expect(snapshotFiles(dir, 'tor_exits', '2026-01-02')).toEqual(before);
  });

  it('is deterministic: the same rows in another order give byte-identical files', async () => {
    const rows = realFeedRows('ai_crawlers');
    await write(path.join(tmp.dir, 'c1'), 'ai_crawlers', '2026-01-02', rows);
    await writeFeedSnapshot({
      dir: path.join(tmp.dir, 'c2'),
      feed: 'ai_crawlers',
      date: '2026-01-02',
      rows: [...rows].reverse(),
      generatedAt: '2026-01-02T00:05:00.000Z',
      datasetVersion: 3,
      runSize: 300, // and through spilled runs
    });
    expect(snapshotFiles(path.join(tmp.dir, 'c2'), 'ai_crawlers', '2026-01-02')).toEqual(
      snapshotFiles(path.join(tmp.dir, 'c1'), 'ai_crawlers', '2026-01-02'),
    );
  });

  it('keeps a past day unchanged after a later day is written from new data; latest is the later day', async () => {
    const dir = path.join(tmp.dir, 'd');
    const rows = realFeedRows('vpn_proxy');
    const day1 = await write(dir, 'vpn_proxy', '2026-01-02', rows);
    const before = snapshotFiles(dir, 'vpn_proxy', '2026-01-02');
    const day2 = await write(dir, 'vpn_proxy', '2026-01-03', rows.slice(0, 1000));
    expect(day2.manifest.row_count).toBe(1000);
    expect(day2.manifest.sha256).not.toBe(day1.manifest.sha256);
    expect(snapshotFiles(dir, 'vpn_proxy', '2026-01-02')).toEqual(before);
    expect(await readFeedManifest(dir, 'vpn_proxy', '2026-01-02')).toEqual(day1.manifest);
    expect(await readFeedManifest(dir, 'vpn_proxy')).toEqual(day2.manifest);
    expect(await listFeedSnapshots(dir, 'vpn_proxy')).toEqual(['2026-01-02', '2026-01-03']);
  });

  it('lets exactly one of two concurrent writers of a day create it', async () => {
    const dir = path.join(tmp.dir, 'e');
    const rows = realFeedRows('asn_wide_blocked');
    const results = await Promise.all([
      write(dir, 'asn_wide_blocked', '2026-01-02', rows),
      write(dir, 'asn_wide_blocked', '2026-01-02', rows.slice(0, 10)),
    ]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(results[0]?.manifest).toEqual(results[1]?.manifest);
    expect(readdirSync(path.join(dir, 'asn_wide_blocked'))).toEqual(['2026-01-02']);
  });

  it('leaves nothing behind when a row is invalid, and validates its inputs', async () => {
    const dir = path.join(tmp.dir, 'f');
    const bad = [...realFeedRows('tor_exits').slice(0, 5), { network: '1.2.3.4/40' }];
    await expect(write(dir, 'tor_exits', '2026-01-02', bad)).rejects.toThrow(/invalid feed row/);
    expect(readdirSync(path.join(dir, 'tor_exits'))).toEqual([]);
    expect(await readFeedManifest(dir, 'tor_exits')).toBeNull();
    await expect(write(dir, 'tor_exits', '2026-02-30', [])).rejects.toThrow(/YYYY-MM-DD/);
    await expect(write(dir, 'tor_exits', '../../etc', [])).rejects.toThrow(/YYYY-MM-DD/);
    await expect(write(dir, 'nope' as FeedName, '2026-01-02', [])).rejects.toThrow(/unknown feed/);
  });

  it('refuses a manifest that was tampered with', async () => {
    const dir = path.join(tmp.dir, 'g');
    await write(dir, 'tor_exits', '2026-01-02', realFeedRows('tor_exits').slice(0, 3));
    writeFileSync(path.join(dir, 'tor_exits', '2026-01-02', 'manifest.json'), '{"feed":"tor_exits"}');
    await expect(readFeedManifest(dir, 'tor_exits', '2026-01-02')).rejects.toThrow(/schema/);
    expect(await readFeedManifest(dir, 'tor_exits', '../x')).toBeNull();
  });
});
