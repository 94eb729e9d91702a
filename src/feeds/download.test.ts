import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realFeedRows } from '../../test/helpers/feeds-real-data.ts';
import { collect, encodeToString, tempDir } from '../../test/helpers/feeds-tools.ts';
import { AppError } from '../core/errors.ts';
import { feedDefinition, feedFileName } from './catalog.ts';
import { openFeedFile } from './download.ts';
import { writeFeedSnapshot } from './snapshot.ts';
import { sortFeedRows } from './sort-rows.ts';
import { FEED_FORMATS } from './types.ts';

const tmp = tempDir('download');
afterAll(tmp.cleanup);

async function text(stream: Readable): Promise<string> {
  return Buffer.concat((await collect(stream)) as Buffer[]).toString('utf8');
}

beforeAll(async () => {
  await writeFeedSnapshot({
    dir: tmp.dir,
    feed: 'ai_crawlers',
    date: '2026-01-02',
    rows: realFeedRows('ai_crawlers'),
    generatedAt: '2026-01-02T00:05:00.000Z',
    datasetVersion: 4,
  });
});

describe('openFeedFile', () => {
  it('streams the stored file with its content type, sha256 (ETag), size and Last-Modified', async () => {
    for (const format of FEED_FORMATS) {
      const d = await openFeedFile(tmp.dir, 'ai_crawlers', undefined, format);
      if (!d) throw new Error('snapshot missing');
      const stored = readFileSync(
        path.join(tmp.dir, 'ai_crawlers', '2026-01-02', feedFileName('ai_crawlers', format)),
      );
      expect(await text(d.stream)).toBe(stored.toString('utf8'));
      expect(d.sha256).toBe(d.manifest.files[format].sha256);
      expect(d.bytes).toBe(stored.length);
      expect(d.lastModified).toBe('2026-01-02T00:05:00.000Z');
      expect(d.brand).toBeNull();
    }
    const csv = await openFeedFile(tmp.dir, 'ai_crawlers', '2026-01-02', 'csv');
    expect(csv?.contentType).toMatch(/^text\/csv/);
    expect(csv?.sha256).toBe(csv?.manifest.sha256);
    expect((await openFeedFile(tmp.dir, 'ai_crawlers', '2026-01-02', 'json'))?.contentType).toMatch(
      /^application\/json/,
    );
  });

  it('filters by brand case-insensitively before encoding, in every format, without an ETag', async () => {
    const openai = realFeedRows('ai_crawlers').filter((r) => r.brand === 'OpenAI');
    const rows = await collect(sortFeedRows(openai));
    expect(rows.length).toBeGreaterThan(100);
    for (const format of FEED_FORMATS) {
      const d = await openFeedFile(tmp.dir, 'ai_crawlers', undefined, format, { brand: ' openai ' });
      if (!d) throw new Error('snapshot missing');
      expect(d.sha256).toBeNull();
      expect(d.bytes).toBeNull();
      expect(d.brand).toBe('openai');
      const ctx = {
        feed: feedDefinition('ai_crawlers'),
        date: '2026-01-02',
        generatedAt: '2026-01-02T00:05:00.000Z',
        datasetVersion: 4,
      };
      expect(await text(d.stream)).toBe(await encodeToString(format, rows, ctx));
    }
    const none = await openFeedFile(tmp.dir, 'ai_crawlers', undefined, 'plain', { brand: 'NoSuchBot' });
    expect(await text(none?.stream as Readable)).toBe('');
  });

  it('rejects unknown feeds, formats, dates and brands with the contract codes; no snapshot is null', async () => {
    const code = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (err) {
        return err instanceof AppError ? err.code : String(err);
      }
      return 'no error';
    };
    expect(await code(openFeedFile(tmp.dir, 'nope', undefined, 'csv'))).toBe('NOT_FOUND');
    expect(await code(openFeedFile(tmp.dir, 'ai_crawlers', undefined, 'xml'))).toBe('INVALID_PARAMETER');
    expect(await code(openFeedFile(tmp.dir, 'ai_crawlers', '../../etc', 'csv'))).toBe('INVALID_PARAMETER');
    expect(await code(openFeedFile(tmp.dir, 'tor_exits', undefined, 'csv', { brand: 'OpenAI' }))).toBe(
      'INVALID_PARAMETER',
    );
    for (const brand of ['', 'a/b', 'x'.repeat(65), 'a\nb', '../x']) {
      expect(await code(openFeedFile(tmp.dir, 'ai_crawlers', undefined, 'csv', { brand }))).toBe(
        'INVALID_PARAMETER',
      );
    }
    expect(await openFeedFile(tmp.dir, 'tor_exits', undefined, 'csv')).toBeNull();
    expect(await openFeedFile(tmp.dir, 'ai_crawlers', '2025-12-31', 'csv')).toBeNull();
  });
});
