/**
 * Issue 20 finding 2, end to end: POST /v1/admin/evidence keeps `source` to the feed row's limit
 * (128), so what it accepts always builds; a row stored before (a 200-character source) is skipped
 * by the daily build, logged and counted on /metrics, and trap_confirmed is published without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { STORE_KINDS, skipStore } from '../../test/helpers/stores.ts';
import { DAY_MS } from '../core/clock.ts';
import { createReputationStore } from '../reputation/index.ts';

describe.each(STORE_KINDS)('evidence source limits and the feed build (%s)', (kind) => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    if (skipStore(kind)) return;
    t = await createTestApp(kind, { clockStart: '2026-06-15T12:00:00Z' });
    admin = await t.key({ permissions: ['admin'] });
  });
  afterAll(async () => t?.close());

  const post = (events: unknown[]) =>
    t.app.http.inject({
      method: 'POST',
      url: '/v1/admin/evidence',
      headers: { 'x-api-key': admin },
      payload: { events },
    });
  const hit = (ip: string, source?: string) => ({
    ip,
    kind: 'pristine_trap',
    observed_at: '2026-06-14T10:00:00Z',
    ...(source === undefined ? {} : { source }),
  });

  it.skipIf(skipStore(kind))('source: 128 characters accepted, 129 rejected and explained', async () => {
    const r = await post([
      hit('198.51.100.1', 's'.repeat(128)),
      hit('198.51.100.2', 's'.repeat(129)),
      hit('198.51.100.3', ''),
    ]);
    expect(r.statusCode).toBe(200);
    const data = r.json().data;
    expect(data.accepted).toBe(2);
    expect(data.rejected).toBe(1);
    expect(JSON.stringify(data.errors)).toContain(
      'events[1]: source must be a string of at most 128 characters',
    );
  });

  it.skipIf(skipStore(kind))(
    'a stored row over the limit is skipped, logged and counted; the feed is built',
    async () => {
      // A row stored before the limits agreed (the API then took 200 characters).
      await createReputationStore(t.app.services.store).insertEvidence(
        [
          {
            ip: '198.51.100.9',
            kind: 'pristine_trap',
            observedAt: Date.parse('2026-06-14T11:00:00Z'),
            synthetic: false,
            source: 'l'.repeat(200),
          },
        ],
        t.clock(),
      );
      // Today's snapshots may exist from start-up: the build under test is the next day's.
      t.clock.advance(DAY_MS);
      const results = await t.app.feedsWorker.runOnce();
      const trap = results.find((r) => r.feed === 'trap_confirmed');
      expect(trap).toMatchObject({ status: 'created', rowCount: 2, skippedRows: 1 });
      // The feeds after it were not stopped (no dataset here: they wait for one, as before).
      expect(results.map((r) => r.status)).not.toContain('failed');
      const csv = await t.app.http.inject({
        url: '/v1/feeds/trap_confirmed/download/csv',
        headers: { 'x-api-key': await t.key({ tier: 'enterprise' }) },
      });
      expect(csv.statusCode).toBe(200);
      expect(csv.body).toContain('198.51.100.1');
      expect(csv.body).toContain('198.51.100.3,pristine_trap,netrep-pristine-trap');
      expect(csv.body).not.toContain('198.51.100.9');
      const metrics = (await t.app.http.inject({ url: '/metrics' })).body;
      expect(metrics).toContain('netrep_feed_rows_skipped_total{feed="trap_confirmed"} 1');
    },
  );
});
