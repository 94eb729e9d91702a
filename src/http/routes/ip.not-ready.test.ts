/**
 * The IP and ASN routes before any dataset snapshot exists: registered all the same, each
 * answers 503 NOT_READY (not 404) until a snapshot is built and reloaded, then answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.ts';
import { datasetFixture } from '../../../test/helpers/intel-app.ts';
import { systemClock } from '../../core/clock.ts';
import { buildDataset } from '../../dataset/index.ts';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp('sqlite');
  key = await t.key({ permissions: ['admin'] });
});
afterAll(async () => {
  await t.close();
});

const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
  t.app.http.inject({ method, url, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });

const DATASET_ROUTES: ['GET' | 'POST', string, unknown?][] = [
  ['GET', '/v1/ip/8.8.8.8'],
  ['POST', '/v1/ip/batch', { ips: ['8.8.8.8'] }],
  ['GET', '/v1/public/ip/8.8.8.8'],
  ['GET', '/v1/public/myip'],
  ['GET', '/v1/asn/15169'],
  ['GET', '/v1/asn/search?q=google'],
  ['GET', '/v1/asn/stats'],
  ['GET', '/v1/public/asn/15169'],
];

describe('IP and ASN routes without a dataset', () => {
  it('answer 503 NOT_READY saying how to get one', async () => {
    for (const [method, url, payload] of DATASET_ROUTES) {
      const res = await call(method, url, payload);
      expect([res.statusCode, res.json().data.code], `${method} ${url}`).toEqual([503, 'NOT_READY']);
      expect(res.json().data.error).toContain('netrep dataset build');
    }
  });

  it('answer from a snapshot built and reloaded later, without a restart', { timeout: 120_000 }, async () => {
    const reload = () => call('POST', '/v1/admin/datasets/reload');
    expect((await reload()).statusCode).toBe(404);
    await buildDataset({ dataDir: t.handle.dataDir, clock: systemClock, npmDir: datasetFixture('npm-a') });
    expect((await reload()).json().data).toEqual({
      previous_version: null,
      dataset_version: 1,
      reloaded: true,
    });
    const res = await call('GET', '/v1/ip/8.8.8.8');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ asn: 15169 });
    expect((await call('GET', '/v1/asn/15169')).statusCode).toBe(200);
  });
});
