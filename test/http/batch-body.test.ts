/**
 * CONTRACT §2 on every batch route: a body of the wrong shape (a string where the list belongs,
 * an object in the list, no list at all) is 400 INVALID_BODY, never coerced into a one-item list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { createIntelTestApp } from '../helpers/intel-app.ts';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createIntelTestApp('sqlite');
  key = await t.key({ permissions: ['admin'], features: ['telemetry_ingest'] });
});
afterAll(async () => {
  await t.close();
});

/** Each batch route with the name of its list field and one valid entry. */
const BATCH_ROUTES: [string, string, unknown][] = [
  ['/v1/ip/batch', 'ips', '1.1.1.1'],
  ['/v1/blocklist/check', 'ips', '1.1.1.1'],
  ['/v1/email/reputation/batch', 'ips', '1.1.1.1'],
  ['/v1/email/pool/classify', 'ips', '1.1.1.1'],
  ['/v1/email/telemetry/ingest', 'observations', { ip: '1.1.1.1', bounce_rate: 0.01 }],
  [
    '/v1/admin/evidence',
    'events',
    { ip: '1.1.1.1', kind: 'smtp_honeypot', observed_at: '2026-06-15T11:00:00Z' },
  ],
];

const post = (url: string, payload: unknown) =>
  t.app.http.inject({ method: 'POST', url, headers: { 'x-api-key': key }, payload: payload as object });

describe('wrong-shape batch bodies', () => {
  it.each(BATCH_ROUTES)('%s: a lone value or a missing list is INVALID_BODY', async (url, field, valid) => {
    // Entries of telemetry and evidence are checked one by one (each rejected with its reason);
    // an entry of an `ips` list that is itself a list is a malformed body.
    const nested = field === 'ips' ? [{ [field]: [[valid]] }, { [field]: [{}] }] : [];
    for (const payload of [{ [field]: valid }, { [field]: 42 }, { [field]: {} }, {}, [valid], ...nested]) {
      const res = await post(url, payload);
      expect([res.statusCode, res.json().data.code], `${url} ${JSON.stringify(payload)}`).toEqual([
        400,
        'INVALID_BODY',
      ]);
    }
    // The same route with the right shape is accepted.
    expect((await post(url, { [field]: [valid] })).statusCode, url).toBe(200);
  });
});
