/**
 * Feeds over the real HTTP API on both stores: dataset built by the real pipeline from real
 * upstream files (test/helpers/feeds-pipeline.ts), trap evidence posted through the admin route,
 * snapshots built by the app's worker as the clock moves from day to day.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { csvRecords } from '../../../test/helpers/feeds-parse.ts';
import { buildFeedsDataset, writeFeedsFixture } from '../../../test/helpers/feeds-pipeline.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import { DAY_MS, toIso } from '../../core/clock.ts';
import { FEED_FORMATS, FEED_NAMES, type FeedCatalog, type FeedManifest, FORMATS } from '../../feeds/index.ts';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe.each(STORE_KINDS)('feed routes (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: TestApp;
  const keys = { free: '', starter: '', pro: '', enterprise: '', admin: '' };
  let from = '';

  const get = (url: string, key: string = keys.enterprise, headers: Record<string, string> = {}) =>
    t.app.http.inject({ method: 'GET', url, headers: { 'x-api-key': key, ...headers } });
  const evidence = async (events: object[]) => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/v1/admin/evidence',
      headers: { 'x-api-key': keys.admin },
      payload: { events },
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  const day = () => toIso(t.clock()).slice(0, 10);

  beforeAll(async () => {
    if (skip) return;
    t = await createTestApp(kind, { clockStart: '2026-06-15T12:00:00Z' });
    for (const tier of ['free', 'starter', 'pro', 'enterprise'] as const)
      keys[tier] = await t.key({ tier, permissions: ['feeds:read'] });
    keys.admin = await t.key({ permissions: ['admin'] });
    // The worker's start-up pass: no dataset yet, so only trap_confirmed (empty) is built.
    await t.app.feedsWorker.runOnce();
  });
  afterAll(async () => {
    await t?.close();
  });

  it.skipIf(skip)(
    'before any dataset: dataset feeds answer 503 NOT_READY, the catalog shows nulls',
    async () => {
      const res = await get('/v1/feeds/tor_exits/download/csv');
      expect(res.statusCode).toBe(503);
      expect(res.json().data).toMatchObject({
        code: 'NOT_READY',
        error: expect.stringMatching(/no snapshot yet/),
      });
      expect((await get('/v1/feeds/tor_exits/manifest')).json().data.code).toBe('NOT_READY');
      const catalog = (await get('/v1/feeds')).json() as FeedCatalog;
      const tor = catalog.feeds.find((f) => f.name === 'tor_exits');
      expect(tor).toMatchObject({ row_count: 0, generated_at: null, sha256: null });
      const trap = catalog.feeds.find((f) => f.name === 'trap_confirmed');
      expect(trap).toMatchObject({ row_count: 0, generated_at: '2026-06-15T12:00:00.000Z' });
    },
  );

  it.skipIf(skip)(
    'the next UTC day builds all six feeds from the dataset and production trap evidence',
    async () => {
      from = path.join(t.handle.dataDir, 'upstream');
      mkdirSync(from);
      writeFeedsFixture(from);
      await buildFeedsDataset(t.handle.dataDir, from, t.clock);
      const at = (h: number) => toIso(t.clock() - h * 3_600_000);
      await evidence([
        { ip: '203.0.113.5', kind: 'pristine_trap', observed_at: at(30), source: 'trap-a' },
        { ip: '203.0.113.5', kind: 'pristine_trap', observed_at: at(2), source: 'trap-b' },
        { ip: '2001:db8::5', kind: 'pristine_trap', observed_at: at(5) },
        { ip: '203.0.113.6', kind: 'pristine_trap', observed_at: at(3), synthetic: true },
        { ip: '203.0.113.7', kind: 'recycled_trap', observed_at: at(3) },
        { ip: '203.0.113.8', kind: 'pristine_trap', observed_at: at(24 * 40) },
      ]);
      // Same day: trap_confirmed already has today's snapshot and is not rebuilt.
      const same = await t.app.feedsWorker.runOnce();
      expect(same.find((r) => r.feed === 'trap_confirmed')).toMatchObject({ status: 'exists', rowCount: 0 });
      t.clock.advance(DAY_MS);
      const results = await t.app.feedsWorker.runOnce();
      expect(results.map((r) => [r.feed, r.status])).toEqual(FEED_NAMES.map((f) => [f, 'created']));
      const trap = csvRecords((await get('/v1/feeds/trap_confirmed/download/csv')).body);
      expect(trap).toEqual([
        {
          network: '203.0.113.5',
          kind: 'pristine_trap',
          source: 'trap-a',
          first_seen: '2026-06-14T06:00:00.000Z',
          last_seen: '2026-06-15T10:00:00.000Z',
          asn: '',
        },
        {
          network: '2001:db8::5',
          kind: 'pristine_trap',
          source: 'netrep-pristine-trap',
          first_seen: '2026-06-15T07:00:00.000Z',
          last_seen: '2026-06-15T07:00:00.000Z',
          asn: '',
        },
      ]);
    },
  );

  it.skipIf(skip)(
    'catalog: no envelope, user_tier, entitled false on premium feeds for free and starter',
    async () => {
      for (const tier of ['free', 'starter', 'pro', 'enterprise'] as const) {
        const res = await get('/v1/feeds', keys[tier]);
        expect(res.statusCode).toBe(200);
        const body = res.json() as FeedCatalog & { data?: unknown; meta?: unknown };
        expect(body.data).toBeUndefined();
        expect(body.meta).toBeUndefined();
        expect(body.user_tier).toBe(tier);
        expect(body.feeds.map((f) => f.name)).toEqual([...FEED_NAMES]);
        const premium = tier === 'pro' || tier === 'enterprise';
        for (const f of body.feeds) {
          expect(f.entitled, `${tier} ${f.name}`).toBe(f.tier === 'free' || premium);
          expect(f.formats).toEqual([...FEED_FORMATS]);
          expect(f.download_url.bind).toBe(`/v1/feeds/${f.name}/download/bind`);
          expect(f.generated_at).toBe('2026-06-16T12:00:00.000Z');
        }
      }
    },
  );

  it.skipIf(skip)('the sha256 in catalog and manifest is the sha256 of the downloaded csv', async () => {
    const catalog = (await get('/v1/feeds')).json() as FeedCatalog;
    for (const item of catalog.feeds) {
      const manifest = (await get(`/v1/feeds/${item.name}/manifest`)).json().data as FeedManifest;
      const csv = await get(`/v1/feeds/${item.name}/download/csv`);
      expect(sha256(csv.rawPayload)).toBe(item.sha256);
      expect(manifest.sha256).toBe(item.sha256);
      expect(manifest.row_count).toBe(item.row_count);
      expect(csvRecords(csv.body)).toHaveLength(item.row_count);
    }
    expect(catalog.feeds.find((f) => f.name === 'tor_exits')?.row_count).toBeGreaterThan(1000);
  });

  it.skipIf(skip)('manifest carries the CONTRACT §9 fields', async () => {
    const res = await get('/v1/feeds/asn_wide_blocked/manifest');
    expect(res.statusCode).toBe(200);
    const m = res.json().data as FeedManifest;
    expect(Object.keys(m).sort()).toEqual(
      [
        'dataset_version',
        'feed',
        'files',
        'generated_at',
        'license',
        'row_count',
        'sha256',
        'snapshot_date',
        'tier',
        'title',
      ].sort(),
    );
    expect(m).toMatchObject({
      feed: 'asn_wide_blocked',
      tier: 'premium',
      snapshot_date: '2026-06-16',
      dataset_version: 1,
    });
    expect(Object.keys(m.files)).toEqual([...FEED_FORMATS]);
    expect(res.json().meta.processing_time_ms).toEqual(expect.any(Number));
  });

  it.skipIf(skip)(
    'downloads every format with its content type, ETag, Last-Modified and length; twice byte-identical',
    async () => {
      const m = (await get('/v1/feeds/tor_exits/manifest')).json().data as FeedManifest;
      for (const format of FEED_FORMATS) {
        const first = await get(`/v1/feeds/tor_exits/download/${format}`);
        expect(first.statusCode, format).toBe(200);
        expect(first.headers['content-type']).toBe(FORMATS[format].contentType);
        expect(first.headers.etag).toBe(`"${m.files[format].sha256}"`);
        expect(sha256(first.rawPayload)).toBe(m.files[format].sha256);
        expect(Number(first.headers['content-length'])).toBe(m.files[format].bytes);
        expect(first.headers['last-modified']).toBe(new Date(m.generated_at).toUTCString());
        expect(first.headers['content-disposition']).toBe(
          `attachment; filename="tor_exits-2026-06-16${FORMATS[format].suffix}"`,
        );
        const second = await get(`/v1/feeds/tor_exits/download/${format}`);
        expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
      }
    },
  );

  it.skipIf(skip)(
    'If-None-Match with the ETag answers 304 without a body; another tag gets the file',
    async () => {
      const first = await get('/v1/feeds/vpn_proxy/download/plain');
      const etag = String(first.headers.etag);
      for (const match of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
        const res = await get('/v1/feeds/vpn_proxy/download/plain', keys.free, { 'if-none-match': match });
        expect(res.statusCode, match).toBe(304);
        expect(res.body).toBe('');
        expect(res.headers.etag).toBe(etag);
      }
      const other = await get('/v1/feeds/vpn_proxy/download/plain', keys.free, { 'if-none-match': '"0000"' });
      expect(other.statusCode).toBe(200);
      expect(other.rawPayload.equals(first.rawPayload)).toBe(true);
    },
  );

  it.skipIf(skip)(
    'brand filter on ai_crawlers: case-insensitive, X-Feed-Brand, no ETag, only that brand',
    async () => {
      const all = csvRecords((await get('/v1/feeds/ai_crawlers/download/csv')).body);
      const openai = all.filter((r) => r.brand === 'OpenAI');
      expect(openai.length).toBeGreaterThan(10);
      const res = await get('/v1/feeds/ai_crawlers/download/csv?brand=openai', keys.free);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-feed-brand']).toBe('openai');
      expect(res.headers.etag).toBeUndefined();
      expect(csvRecords(res.body)).toEqual(openai);
      const plain = await get('/v1/feeds/ai_crawlers/download/plain?brand=OPENAI', keys.free);
      expect(plain.body.split('\n').filter((l) => l && !l.startsWith('#'))).toHaveLength(openai.length);
      const none = await get('/v1/feeds/ai_crawlers/download/csv?brand=nobody', keys.free);
      expect(csvRecords(none.body)).toEqual([]);
      const wrongFeed = await get('/v1/feeds/tor_exits/download/csv?brand=openai');
      expect([wrongFeed.statusCode, wrongFeed.json().data.code]).toEqual([400, 'INVALID_PARAMETER']);
      const hostile = await get(
        `/v1/feeds/ai_crawlers/download/csv?brand=${encodeURIComponent('a"\r\nx: y')}`,
      );
      expect([hostile.statusCode, hostile.json().data.code]).toEqual([400, 'INVALID_PARAMETER']);
    },
  );

  it.skipIf(skip)(
    'ai_crawlers holds AI crawlers only; include=search adds search engines, with the brand filter too',
    async () => {
      const base = await get('/v1/feeds/ai_crawlers/download/csv', keys.free);
      const ai = csvRecords(base.body);
      expect(new Set(ai.map((r) => r.kind))).toEqual(new Set(['ai_crawler']));
      expect(new Set(ai.map((r) => r.brand))).toEqual(new Set(['OpenAI', 'Perplexity']));
      const manifest = (await get('/v1/feeds/ai_crawlers/manifest')).json().data as FeedManifest;
      expect(manifest.row_count).toBe(ai.length);
      const res = await get('/v1/feeds/ai_crawlers/download/csv?include=search', keys.free);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-feed-include']).toBe('search');
      expect(res.headers.etag).toBeUndefined();
      const all = csvRecords(res.body);
      const search = all.filter((r) => r.kind === 'search_crawler');
      expect(new Set(search.map((r) => r.source))).toEqual(new Set(['bingbot', 'applebot', 'duckduckbot']));
      expect(all.filter((r) => r.kind === 'ai_crawler')).toEqual(ai);
      expect(all).toHaveLength(ai.length + search.length);
      const bing = await get(
        '/v1/feeds/ai_crawlers/download/plain?include=search&brand=microsoft',
        keys.free,
      );
      expect(bing.body.split('\n').filter((l) => l && !l.startsWith('#'))).toHaveLength(
        search.filter((r) => r.brand === 'Microsoft').length,
      );
      // The brand filter alone keeps to the AI rows.
      expect(csvRecords((await get('/v1/feeds/ai_crawlers/download/csv?brand=microsoft')).body)).toEqual([]);
      for (const url of [
        '/v1/feeds/ai_crawlers/download/csv?include=ads',
        '/v1/feeds/tor_exits/download/csv?include=search',
      ]) {
        const bad = await get(url);
        expect([bad.statusCode, bad.json().data.code], url).toEqual([400, 'INVALID_PARAMETER']);
      }
    },
  );

  it.skipIf(skip)(
    '403 premium on free and starter keys, 404 unknown feed, 400 unknown format or date',
    async () => {
      for (const tier of ['free', 'starter'] as const) {
        for (const url of ['/v1/feeds/trap_confirmed/manifest', '/v1/feeds/asn_wide_blocked/download/csv']) {
          const res = await get(url, keys[tier]);
          expect([res.statusCode, res.json().data.code], `${tier} ${url}`).toEqual([403, 'FORBIDDEN']);
          expect(res.json().data.error).toMatch(/premium/);
        }
      }
      expect((await get('/v1/feeds/trap_confirmed/download/csv', keys.pro)).statusCode).toBe(200);
      expect((await get('/v1/feeds/tor_exits/download/csv', keys.free)).statusCode).toBe(200);
      for (const url of [
        '/v1/feeds/nope/manifest',
        '/v1/feeds/nope/download/csv',
        '/v1/feeds/TOR_EXITS/download/csv',
      ]) {
        const res = await get(url);
        expect([res.statusCode, res.json().data.code], url).toEqual([404, 'NOT_FOUND']);
      }
      for (const url of [
        '/v1/feeds/tor_exits/download/xml',
        '/v1/feeds/tor_exits/download/CSV',
        '/v1/feeds/tor_exits/download/csv?date=2026-02-30',
        '/v1/feeds/tor_exits/manifest?date=../../etc',
      ]) {
        const res = await get(url);
        expect([res.statusCode, res.json().data.code], url).toEqual([400, 'INVALID_PARAMETER']);
      }
      const missingDay = await get('/v1/feeds/tor_exits/download/csv?date=2026-01-01');
      expect([missingDay.statusCode, missingDay.json().data.code]).toEqual([404, 'NOT_FOUND']);
    },
  );

  it.skipIf(skip)(
    'a past day still downloads unchanged after the evidence and the dataset changed',
    async () => {
      const before: Record<string, Buffer> = {};
      for (const feed of ['trap_confirmed', 'tor_exits'] as const)
        before[feed] = (await get(`/v1/feeds/${feed}/download/csv`)).rawPayload;
      const past = day();
      await evidence([{ ip: '198.51.100.9', kind: 'pristine_trap', observed_at: toIso(t.clock() - 60_000) }]);
      const bulk = path.join(from, 'tor/torbulkexitlist.txt');
      writeFileSync(bulk, `${readFileSync(bulk, 'utf8').trimEnd()}\n192.0.2.99\n`);
      await buildFeedsDataset(t.handle.dataDir, from, t.clock);
      // A rebuild on the same day never rewrites it.
      await t.app.feedsWorker.runOnce();
      expect(
        (await get('/v1/feeds/trap_confirmed/download/csv')).rawPayload.equals(
          before.trap_confirmed as Buffer,
        ),
      ).toBe(true);
      t.clock.advance(DAY_MS);
      await t.app.feedsWorker.runOnce();
      for (const feed of ['trap_confirmed', 'tor_exits'] as const) {
        const old = await get(`/v1/feeds/${feed}/download/csv?date=${past}`);
        expect(old.rawPayload.equals(before[feed] as Buffer), feed).toBe(true);
        const latest = await get(`/v1/feeds/${feed}/download/csv`);
        expect(latest.rawPayload.equals(before[feed] as Buffer), feed).toBe(false);
        expect(latest.headers['x-feed-snapshot-date']).toBe(day());
      }
      expect((await get('/v1/feeds/trap_confirmed/download/plain')).body).toMatch(/^198\.51\.100\.9$/m);
      const m = (await get(`/v1/feeds/tor_exits/manifest?date=${past}`)).json().data as FeedManifest;
      expect(m.dataset_version).toBe(1);
      expect((await get('/v1/feeds/tor_exits/manifest')).json().data.dataset_version).toBe(2);
    },
  );
});
