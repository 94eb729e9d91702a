/**
 * POST /v1/email/pool/classify on both stores: input rules, per-owner persistence, exactly
 * one graduation event on probation -> seasoned, 30-day retention, and 503 when evidence
 * cannot be read (the whole request fails, nothing is stored).
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_POSTGRES_URL } from '../../../test/helpers/backends.ts';
import { createReputationTestApp, type ReputationTestApp } from '../../../test/helpers/reputation-app.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import { DAY_MS, toIso } from '../../core/clock.ts';

describe.each(STORE_KINDS)('pool classification (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: ReputationTestApp;
  let poolKey: string;
  let admin: string;
  let tele: string;

  const classify = async (ips: unknown, key = poolKey) => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/v1/email/pool/classify',
      headers: { 'x-api-key': key },
      payload: { ips },
    });
    return { status: res.statusCode, data: res.json().data };
  };

  /** Renames a table through a second connection: the running app can no longer read it. */
  const renameTable = async (from: string, to: string) => {
    if (t.handle.pgSchema) {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      await client.query(`alter table ${t.handle.pgSchema}.${from} rename to ${to}`);
      await client.end();
    } else {
      const other = t.handle.reopen();
      await sql`alter table ${sql.raw(from)} rename to ${sql.raw(to)}`.execute(other.db);
      await other.close();
    }
  };

  beforeEach(async () => {
    if (skip) return;
    // A minute, not PostgreSQL's default second: "a stopped store" below relies on the key staying
    // known after the pool is ended, and on a busy CI machine ending it took longer than a second
    // (2026-12-08: STORE_UNAVAILABLE from authentication instead of EVIDENCE_UNAVAILABLE).
    t = await createReputationTestApp(kind, '2026-04-01T12:00:00Z', 60_000);
    poolKey = await t.key(['email:read'], ['telemetry_ingest']);
    admin = await t.key(['admin']);
    tele = await t.key(['telemetry:write']);
  });
  afterEach(async () => {
    await t?.close();
  });

  it.skipIf(skip)(
    'needs the telemetry_ingest feature; 1-50 IPs; invalid entries named; duplicates once',
    async () => {
      expect((await classify(['45.33.40.1'], await t.key(['email:read']))).status).toBe(403);
      const many = Array.from({ length: 51 }, (_, i) => `45.33.40.${i}`);
      expect(await classify(many)).toEqual({
        status: 400,
        data: { code: 'TOO_MANY_IPS', error: 'maximum 50 IPs per request' },
      });
      expect((await classify(many.slice(0, 50))).data).toHaveLength(50);
      const bad = await classify(['45.33.40.1', 'bogus']);
      expect(bad.status).toBe(400);
      expect(bad.data).toMatchObject({ code: 'INVALID_IP', error: expect.stringContaining('ips[1]') });
      expect((await classify([])).data.code).toBe('INVALID_BODY');
      const dup = await classify(['45.33.41.1', '::ffff:45.33.41.1', '45.33.41.2', '45.33.41.1']);
      expect(dup.status).toBe(200);
      expect(dup.data.map((i: { ip: string }) => i.ip)).toEqual(['45.33.41.1', '45.33.41.2']);
      expect(dup.data[0]).toEqual({
        ip: '45.33.41.1',
        tier: 'probation',
        reputation_score: 60,
        warmup_status: 'cold',
        listed: false,
        fcrdns_status: 'unknown',
        recommendation: expect.any(String),
      });
      await t.app.services.blocklist!.list({ ip: '45.33.41.2', type: 'malware', reason: 'x' });
      expect((await classify(['45.33.41.2'])).data[0]).toMatchObject({ tier: 'suspend', listed: true });
    },
  );

  it.skipIf(skip)(
    'graduation: probation, then evidence makes it seasoned: exactly one event, then none',
    async () => {
      const ip = '45.33.42.7';
      const owner = await t.user();
      const ownerKey = await t.key(['email:read'], ['telemetry_ingest'], owner);
      const ingest = await t.app.http.inject({
        method: 'POST',
        url: '/v1/email/telemetry/ingest',
        headers: { 'x-api-key': tele },
        payload: { observations: [{ ip, volume_24h: 1000, bounce_rate: 0.01, complaint_rate: 0 }] },
      });
      expect(ingest.json().data.accepted).toBe(1);
      t.clock.advance(31 * DAY_MS);
      const first = await classify([ip], ownerKey);
      // Day 32, score 60 + clean /24 is... 50 + 10 (/24) + 2 (31 days of age) = 62: warm, probation.
      expect(first.data[0]).toMatchObject({ tier: 'probation', warmup_status: 'warm', reputation_score: 62 });
      const since = t.clock() - DAY_MS;
      expect(await t.app.services.warmup!.graduationEvents(owner, since)).toEqual([]);

      // A production trap hit two years ago (outside the 30-day window) moves the age anchor: +20.
      const evidence = await t.app.http.inject({
        method: 'POST',
        url: '/v1/admin/evidence',
        headers: { 'x-api-key': admin },
        payload: { events: [{ ip, kind: 'recycled_trap', observed_at: toIso(t.clock() - 730 * DAY_MS) }] },
      });
      expect(evidence.json().data.accepted).toBe(1);
      t.clock.advance(60_000);
      const second = await classify([ip], ownerKey);
      expect(second.data[0]).toMatchObject({ tier: 'seasoned', reputation_score: 80 });
      const events = await t.app.services.warmup!.graduationEvents(owner, since);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        ownerId: owner,
        ip,
        entityType: 'email_pool',
        sourceKey: 'email_pool',
        occurredAt: t.clock(),
        state: {
          previous_tier: 'probation',
          tier: 'seasoned',
          reputation_score: 80,
          warmup_status: 'warm',
          listed: false,
          fcrdns_status: 'unknown',
        },
      });
      // Only aggregate classification fields: no evidence, telemetry or key material.
      expect(Object.keys(events[0]!.state).sort()).toEqual(
        ['fcrdns_status', 'listed', 'previous_tier', 'reputation_score', 'tier', 'warmup_status'].sort(),
      );
      t.clock.advance(60_000);
      expect((await classify([ip], ownerKey)).data[0].tier).toBe('seasoned');
      expect(await t.app.services.warmup!.graduationEvents(owner, since)).toHaveLength(1);
      // Classifications are per owner: another owner's first classification emits nothing.
      expect((await classify([ip])).data[0].tier).toBe('seasoned');
      const all = await t.app.store.db.selectFrom('graduation_events').select('ip').execute();
      expect(all).toHaveLength(1);

      // Retention: 30 days. A later classification prunes older events.
      t.clock.advance(31 * DAY_MS);
      await classify(['45.33.42.8'], ownerKey);
      expect(await t.app.services.warmup!.graduationEvents(owner, 0)).toEqual([]);
    },
  );

  it.skipIf(skip)('unreadable evidence fails the whole request with 503 and stores nothing', async () => {
    const ok = await classify(['45.33.43.1']);
    expect(ok.status).toBe(200);
    // The answer reads the daily evidence rollup (issue 18): that is the table moved away.
    await renameTable('reputation_evidence_days', 'reputation_evidence_away');
    const down = await classify(['45.33.43.1', '45.33.43.2']);
    expect(down).toEqual({
      status: 503,
      data: {
        code: 'EVIDENCE_UNAVAILABLE',
        error: 'reputation evidence is unavailable; no score is synthesized',
      },
    });
    const single = await t.app.http.inject({
      url: '/v1/email/ip/45.33.43.2/reputation',
      remoteAddress: '198.51.100.1',
    });
    expect(single.statusCode).toBe(503);
    await renameTable('reputation_evidence_away', 'reputation_evidence_days');
    const rows = await t.app.store.db
      .selectFrom('pool_classifications')
      .select('ip')
      .where('ip', '=', '45.33.43.2')
      .execute();
    expect(rows).toEqual([]);
    expect((await classify(['45.33.43.1', '45.33.43.2'])).status).toBe(200);
  });

  it.skipIf(skip)('a stopped store under the running app: 503 for pool classification', async () => {
    // Authenticate once so the key is known, then stop the store: on PostgreSQL the pool is
    // ended (the key stays in the auth cache, a minute here); on SQLite, where authentication reads the
    // same file, the change stamps every answer reads first (even one from kept facts) are
    // moved away instead.
    expect((await classify(['45.33.44.1'])).status).toBe(200);
    if (t.app.store.pgPool) await t.app.store.pgPool.end();
    else await renameTable('input_stamps', 'input_stamps_gone');
    const down = await classify(['45.33.44.1']);
    expect(down.status).toBe(503);
    expect(down.data.code).toBe('EVIDENCE_UNAVAILABLE');
  });
});
