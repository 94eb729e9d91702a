/**
 * Issue 20 finding 2: in the daily build a source row that is not a valid feed row is skipped
 * and counted (the feed is still published), and one feed's failure does not stop the others.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../core/clock.ts';
import { UPSTREAM_SOURCES } from '../dataset/index.ts';
import { MAX_SOURCE_LENGTH } from '../reputation/index.ts';
import { buildDailyFeeds, type DatasetFeedName, type FeedRowSources } from './build.ts';
import { readFeedManifest } from './snapshot.ts';
import { FEED_NAMES, type FeedName, type FeedRow, FeedRowSchema, MAX_FEED_SOURCE_LENGTH } from './types.ts';

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

const row = (network: string, source = 'fixture'): FeedRow => ({
  network,
  kind: 'tor_exit',
  source,
  first_seen: '2026-03-01T00:00:00Z',
  last_seen: '2026-03-30T00:00:00Z',
});

function sources(rows: (feed: DatasetFeedName) => FeedRow[], traps = 1): FeedRowSources {
  return {
    dataset: async () => ({
      version: 3,
      async *rows(feed) {
        yield* rows(feed);
      },
    }),
    trapSources: async () =>
      Array.from({ length: traps }, (_, i) => ({
        ip: `198.51.100.${i + 1}`,
        firstSeen: Date.parse('2026-03-30T00:00:00Z'),
        lastSeen: Date.parse('2026-03-30T01:00:00Z'),
        source: i === 0 ? 'x'.repeat(200) : i === 1 ? '' : 'trap-net',
      })),
  };
}

describe('buildDailyFeeds with bad rows and failing feeds', () => {
  const clock = createManualClock('2026-03-31T12:00:00Z');

  it('skips and counts each invalid row; the feed is still built from the others', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'netrep-feeds-build-'));
    const skipped: [FeedName, string][] = [];
    const results = await buildDailyFeeds({
      dir,
      clock,
      sources: sources(() => [
        row('192.0.2.1'),
        row('192.0.2.2', 'y'.repeat(129)),
        row('192.0.2.3', ''),
        row('not-an-ip'),
        { ...row('192.0.2.4'), kind: 5 } as unknown as FeedRow,
        row('192.0.2.5'),
      ]),
      feeds: ['tor_exits'],
      onSkippedRow: (feed, reason) => skipped.push([feed, reason]),
    });
    expect(results).toMatchObject([{ feed: 'tor_exits', status: 'created', rowCount: 2, skippedRows: 4 }]);
    expect(skipped.map(([f]) => f)).toEqual(['tor_exits', 'tor_exits', 'tor_exits', 'tor_exits']);
    expect(skipped[0]?.[1]).toMatch(/\/source/);
    expect((await readFeedManifest(dir, 'tor_exits', '2026-03-31'))?.row_count).toBe(2);
  });

  it('trap_confirmed: an over-long stored source is skipped and counted, an empty one is the default', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'netrep-feeds-build-'));
    const results = await buildDailyFeeds({
      dir,
      clock,
      sources: sources(() => [], 3),
      feeds: ['trap_confirmed'],
    });
    expect(results).toMatchObject([
      { feed: 'trap_confirmed', status: 'created', rowCount: 2, skippedRows: 1 },
    ]);
  });

  it('a feed whose rows fail is reported failed; the feeds before and after it are built', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'netrep-feeds-build-'));
    const results = await buildDailyFeeds({
      dir,
      clock,
      sources: sources((feed) => {
        if (feed === 'vpn_proxy') throw new Error('vpn_proxy rows are unreadable');
        return [row('192.0.2.1')];
      }),
    });
    expect(results.map((r) => [r.feed, r.status])).toEqual(
      FEED_NAMES.map((f) => [f, f === 'vpn_proxy' ? 'failed' : 'created']),
    );
    expect(results.find((r) => r.feed === 'vpn_proxy')?.reason).toBe('vpn_proxy rows are unreadable');
    expect(await readFeedManifest(dir, 'vpn_proxy', '2026-03-31')).toBeNull();
    expect((await readFeedManifest(dir, 'asn_wide_blocked', '2026-03-31'))?.row_count).toBe(1);
    // The next run retries the failed feed and leaves the built ones as they are.
    const again = await buildDailyFeeds({ dir, clock, sources: sources(() => [row('192.0.2.1')]) });
    expect(again.map((r) => [r.feed, r.status])).toEqual(
      FEED_NAMES.map((f) => [f, f === 'vpn_proxy' ? 'created' : 'exists']),
    );
  });

  it('a dataset that cannot be read fails the dataset feeds, not trap_confirmed', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'netrep-feeds-build-'));
    const results = await buildDailyFeeds({
      dir,
      clock,
      sources: {
        dataset: async () => {
          throw new Error('snapshot unreadable');
        },
        trapSources: sources(() => [], 3).trapSources,
      },
    });
    expect(results.map((r) => [r.feed, r.status])).toEqual(
      FEED_NAMES.map((f) => [f, f === 'trap_confirmed' ? 'created' : 'failed']),
    );
  });
});

describe('the limits along the way into a feed row agree', () => {
  it('evidence sources, upstream source ids and brands fit the feed row schema', () => {
    expect(MAX_SOURCE_LENGTH).toBe(MAX_FEED_SOURCE_LENGTH);
    expect(FeedRowSchema.properties.source.maxLength).toBe(MAX_FEED_SOURCE_LENGTH);
    const brandMax = FeedRowSchema.properties.brand.maxLength ?? 0;
    for (const spec of UPSTREAM_SOURCES) {
      expect(spec.id.length, spec.id).toBeLessThanOrEqual(MAX_FEED_SOURCE_LENGTH);
      expect(spec.id.length, spec.id).toBeGreaterThan(0);
      if (spec.label) expect(spec.label.length, spec.label).toBeLessThanOrEqual(brandMax);
    }
  });
});
