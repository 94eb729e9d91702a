import { Value } from '@sinclair/typebox/value';
import { afterAll, describe, expect, it } from 'vitest';
import { realFeedRows } from '../../test/helpers/feeds-real-data.ts';
import { tempDir } from '../../test/helpers/feeds-tools.ts';
import { FEEDS, isEntitled } from './catalog.ts';
import { listFeedCatalog } from './index.ts';
import { writeFeedSnapshot } from './snapshot.ts';
import { FEED_FORMATS, FEED_NAMES, FeedCatalogSchema, FeedFormatSchema, FeedNameSchema } from './types.ts';

const tmp = tempDir('catalog');
afterAll(tmp.cleanup);

describe('feed catalog', () => {
  it('defines the six feeds of spec §2.10 with tiers, licenses and the brand filter on ai_crawlers only', () => {
    expect(FEEDS.map((f) => f.name)).toEqual([...FEED_NAMES]);
    expect(FEED_NAMES.every((n) => Value.Check(FeedNameSchema, n))).toBe(true);
    expect(FEED_FORMATS.every((f) => Value.Check(FeedFormatSchema, f))).toBe(true);
    expect(FEEDS.filter((f) => f.tier === 'premium').map((f) => f.name)).toEqual([
      'trap_confirmed',
      'asn_wide_blocked',
    ]);
    expect(FEEDS.filter((f) => f.has_brand).map((f) => f.name)).toEqual(['ai_crawlers']);
    for (const f of FEEDS) expect(f.license.length).toBeGreaterThan(30);
  });

  it('entitles premium feeds to pro and enterprise only (CONTRACT §3)', () => {
    const premium = FEEDS.find((f) => f.tier === 'premium');
    const free = FEEDS.find((f) => f.tier === 'free');
    if (!premium || !free) throw new Error('catalog lacks a tier');
    expect((['free', 'starter', 'pro', 'enterprise'] as const).map((t) => isEntitled(premium, t))).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect((['free', 'starter', 'pro', 'enterprise'] as const).every((t) => isEntitled(free, t))).toBe(true);
  });

  it('lists the latest snapshot of each feed, and nulls before the first build', async () => {
    const { manifest } = await writeFeedSnapshot({
      dir: tmp.dir,
      feed: 'tor_exits',
      date: '2026-01-02',
      rows: realFeedRows('tor_exits'),
      generatedAt: '2026-01-02T00:05:00.000Z',
      datasetVersion: 2,
    });
    const catalog = await listFeedCatalog(tmp.dir, 'starter');
    expect(Value.Check(FeedCatalogSchema, catalog)).toBe(true);
    expect(catalog.user_tier).toBe('starter');
    const tor = catalog.feeds.find((f) => f.name === 'tor_exits');
    expect(tor).toMatchObject({
      entitled: true,
      row_count: manifest.row_count,
      sha256: manifest.sha256,
      generated_at: manifest.generated_at,
    });
    expect(tor?.download_url.iptables).toBe('/v1/feeds/tor_exits/download/iptables');
    expect(catalog.feeds.find((f) => f.name === 'trap_confirmed')).toMatchObject({
      entitled: false,
      row_count: 0,
      sha256: null,
      generated_at: null,
    });
  });
});
