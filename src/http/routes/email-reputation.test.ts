/**
 * Reputation, batch, neighbours and warm-up routes on both stores: history across 30 days
 * with the clock moved, /24 contamination switching at 0/1/3/6, batch and neighbour input
 * rules, and 503 EVIDENCE_UNAVAILABLE (never a score) when the store is stopped under the app.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createReputationTestApp,
  nextClientIp,
  type ReputationTestApp,
} from '../../../test/helpers/reputation-app.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import { DAY_MS, toIso, utcDay } from '../../core/clock.ts';
import { ReputationData } from '../../reputation/index.ts';
import { envelope } from '../schemas.ts';

const HOUR_MS = 3_600_000;

async function reputationOf(t: ReputationTestApp, ip: string) {
  const res = await t.app.http.inject({
    url: `/v1/email/ip/${encodeURIComponent(ip)}/reputation`,
    remoteAddress: nextClientIp(),
  });
  return {
    status: res.statusCode,
    body: res.json() as { data: Record<string, unknown> & { score: number } },
  };
}

async function batch(t: ReputationTestApp, ips: unknown) {
  const res = await t.app.http.inject({
    method: 'POST',
    url: '/v1/email/reputation/batch',
    payload: { ips },
    remoteAddress: nextClientIp(),
  });
  return { status: res.statusCode, body: res.json() as { data: unknown } };
}

describe.each(STORE_KINDS)('reputation routes (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: ReputationTestApp;
  let reader: string;

  beforeEach(async () => {
    if (skip) return;
    t = await createReputationTestApp(kind, '2026-05-01T00:00:00Z');
    reader = await t.key(['email:read']);
  });
  afterEach(async () => {
    await t?.close();
  });

  it.skipIf(skip)('history: one point per UTC day, the last computation of the day, 30 days', async () => {
    const ip = '45.33.10.10';
    const start = Date.parse('2026-05-01T00:00:00Z');
    const lastOfDay: { day: string; score: number; at: number }[] = [];
    const blocklist = t.app.services.blocklist!;
    for (let d = 0; d < 35; d++) {
      t.clock.set(start + d * DAY_MS + 3 * HOUR_MS);
      expect((await reputationOf(t, ip)).status).toBe(200);
      t.clock.set(start + d * DAY_MS + 20 * HOUR_MS);
      if (d % 3 === 1) await blocklist.list({ ip, type: 'spam', reason: 'history test' });
      else await blocklist.delist(ip, { reason: 'history test' });
      const r = await reputationOf(t, ip);
      lastOfDay.push({ day: utcDay(t.clock()), score: r.body.data.score, at: t.clock() });
      const history = r.body.data.history as { score: number; level: string; computed_at: string }[];
      const expected = lastOfDay.slice(-30);
      expect(history.map((p) => p.computed_at)).toEqual(expected.map((p) => toIso(p.at)));
      expect(history.map((p) => p.score)).toEqual(expected.map((p) => p.score));
    }
    // Scores did change over the days, so "last of the day" was really tested.
    expect(new Set(lastOfDay.map((p) => p.score)).size).toBeGreaterThan(1);
    const final = (await reputationOf(t, ip)).body.data.history as unknown[];
    expect(final).toHaveLength(30);
  });

  it.skipIf(skip)('subnet contamination switches exactly at 0/1/3/6 active listings', async () => {
    const ip = '45.33.20.10';
    const blocklist = t.app.services.blocklist!;
    const expectations: [number, string, number][] = [
      [0, 'clean', 10],
      [1, 'light', 0],
      [2, 'light', 0],
      [3, 'moderate', -5],
      [5, 'moderate', -5],
      [6, 'heavy', -15],
      [7, 'heavy', -15],
    ];
    let listed = 0;
    for (const [n, level, impact] of expectations) {
      while (listed < n) {
        await blocklist.list({ ip: `45.33.20.${100 + listed}`, type: 'spam', reason: 'neighbour' });
        listed++;
      }
      const nb = await t.app.http.inject({
        url: `/v1/email/ip/${ip}/neighbors`,
        headers: { 'x-api-key': reader },
      });
      expect(nb.statusCode, nb.body).toBe(200);
      expect(nb.json().data).toMatchObject({
        subnet: '45.33.20.0/24',
        listed_count: n,
        contamination_level: level,
      });
      const rep = await reputationOf(t, ip);
      const factor = (rep.body.data.factors as { name: string; impact: number }[]).find(
        (f) => f.name === 'neighbor_reputation',
      );
      expect(factor?.impact).toBe(impact);
      expect(rep.body.data.subnet).toMatchObject({ listed_count: n, contamination_level: level });
    }
    // A listing in another /24 does not count; an expired or delisted one stops counting.
    await blocklist.list({ ip: '45.33.21.1', type: 'spam', reason: 'elsewhere' });
    await blocklist.delist('45.33.20.100');
    const nb = await t.app.http.inject({
      url: `/v1/email/ip/${ip}/neighbors`,
      headers: { 'x-api-key': reader },
    });
    expect(nb.json().data).toMatchObject({ listed_count: 6, contamination_level: 'heavy' });
  });

  it.skipIf(skip)('subnet summary: seen addresses, average and worst score', async () => {
    await t.app.services.blocklist!.list({ ip: '45.33.22.2', type: 'spam', reason: 'x' });
    const a = await reputationOf(t, '45.33.22.1');
    const b = await reputationOf(t, '45.33.22.2');
    expect(a.body.data.score).toBe(50); // light /24: neighbour factor 0
    expect(b.body.data.score).toBe(10); // listing -40, light /24 0
    const nb = await t.app.http.inject({
      url: '/v1/email/ip/45.33.22.77/neighbors',
      headers: { 'x-api-key': reader },
    });
    expect(nb.json().data).toEqual({
      subnet: '45.33.22.0/24',
      total_ips_seen: 2,
      listed_count: 1,
      avg_reputation: 30,
      worst_score: 10,
      contamination_level: 'light',
    });
    const v6 = await reputationOf(t, '2606:4700::1111');
    expect(v6.body.data.subnet).toBeNull();
    expect(v6.body.data.blocklist).toEqual({ listed: false });
  });

  it.skipIf(skip)('single: invalid IP 400, normalized answer, fcrdns when stored', async () => {
    expect((await reputationOf(t, '300.1.1.1')).body).toMatchObject({ data: { code: 'INVALID_IP' } });
    expect((await reputationOf(t, '1.2.3.04')).status).toBe(400);
    await t.app.services.reputation!.recordFcrdns({
      ip: '45.33.23.1',
      ptrHostname: 'mta1.example.test',
      forwardMatch: false,
      forwardIps: ['192.0.2.1'],
      lastCheckedAt: t.clock() - HOUR_MS,
      lastObservedAt: null,
    });
    const r = await reputationOf(t, '::ffff:45.33.23.1');
    expect(r.status).toBe(200);
    expect(r.body.data.ip).toBe('45.33.23.1');
    expect(r.body.data.fcrdns).toEqual({
      ip: '45.33.23.1',
      ptr_hostname: 'mta1.example.test',
      forward_match: false,
      forward_ips: ['192.0.2.1'],
      last_checked_at: toIso(t.clock() - HOUR_MS),
      last_observed_at: null,
    });
    expect(r.body.data.factors).toContainEqual(expect.objectContaining({ name: 'fcrdns', impact: -15 }));
  });

  it.skipIf(skip)('single: the bytes fast-json-stringify writes over the answer schema', async () => {
    // The route writes its answer by hand (reputation/answer-json.ts); kept texts make the second.
    const bySchema = SerializerSelector()({}, {})({
      schema: envelope(ReputationData),
      method: 'GET',
      url: '/x',
      httpStatus: '200',
    }) as (value: unknown) => string;
    const ip = '45.33.24.9';
    await t.app.services.reputation!.recordFcrdns({
      ip,
      ptrHostname: 'mta"9\\.example.test',
      forwardMatch: true,
      forwardIps: [ip],
      lastCheckedAt: t.clock() - HOUR_MS,
      lastObservedAt: t.clock() - 2 * HOUR_MS,
    });
    await t.app.services.blocklist!.list({ ip: '45.33.24.10', type: 'spam', reason: 'test' });
    for (let d = 0; d < 3; d++) {
      t.clock.advance(DAY_MS);
      for (let i = 0; i < 2; i++) {
        const res = await t.app.http.inject({
          url: `/v1/email/ip/${ip}/reputation`,
          remoteAddress: nextClientIp(),
        });
        expect(res.statusCode).toBe(200);
        expect(res.body).toBe(bySchema(res.json()));
        expect(res.json().data.history).toHaveLength(d + 1);
      }
    }
  });

  it.skipIf(skip)(
    'batch: 1-100 public IPs, invalid and non-public entries named, duplicates once',
    async () => {
      const ok = await batch(t, ['45.33.24.1', ' 45.33.24.1', '2606:4700::1']);
      expect(ok.status).toBe(200);
      expect(ok.body.data).toEqual([
        { ip: '45.33.24.1', score: 60, level: 'neutral' },
        { ip: '2606:4700::1', score: 50, level: 'poor' },
      ]);
      const bad = await batch(t, ['45.33.24.1', 'nope']);
      expect(bad.status).toBe(400);
      expect(bad.body.data).toMatchObject({ code: 'INVALID_IP', error: expect.stringContaining('ips[1]') });
      for (const priv of [
        '10.0.0.1',
        '127.0.0.1',
        '192.168.1.1',
        '198.18.0.1',
        '::1',
        'fe80::1',
        '2001:db8::1',
      ]) {
        const r = await batch(t, ['45.33.24.1', priv]);
        expect(r.status, priv).toBe(400);
        expect(r.body.data).toMatchObject({ code: 'INVALID_IP', error: expect.stringContaining('ips[1]') });
      }
      const many = Array.from({ length: 101 }, (_, i) => `45.33.25.${i}`);
      const over = await batch(t, many);
      expect(over.body.data).toEqual({ code: 'TOO_MANY_IPS', error: 'maximum 100 IPs per request' });
      expect((await batch(t, many.slice(0, 100))).status).toBe(200);
      expect((await batch(t, [])).body.data).toMatchObject({ code: 'INVALID_BODY' });
      expect((await batch(t, 'x')).status).toBe(400);
      expect((await batch(t, [{ ip: 1 }])).status).toBe(400);
    },
  );

  it.skipIf(skip)(
    'anonymous reputation bucket: 60/min per client IP shared by single and batch',
    async () => {
      const client = '203.0.113.9';
      for (let i = 0; i < 30; i++) {
        expect(
          (await t.app.http.inject({ url: '/v1/email/ip/45.33.26.1/reputation', remoteAddress: client }))
            .statusCode,
        ).toBe(200);
        const b = await t.app.http.inject({
          method: 'POST',
          url: '/v1/email/reputation/batch',
          payload: { ips: ['45.33.26.2'] },
          remoteAddress: client,
        });
        expect(b.statusCode).toBe(200);
      }
      const over = await t.app.http.inject({
        url: '/v1/email/ip/45.33.26.1/reputation',
        remoteAddress: client,
      });
      expect(over.statusCode).toBe(429);
    },
  );

  it.skipIf(skip)('neighbors: key with email:read, public IPv4 only', async () => {
    const get = (ip: string, key?: string) =>
      t.app.http.inject({
        url: `/v1/email/ip/${encodeURIComponent(ip)}/neighbors`,
        headers: key ? { 'x-api-key': key } : {},
      });
    expect((await get('45.33.27.1')).statusCode).toBe(401);
    expect((await get('45.33.27.1', await t.key(['ip:read']))).statusCode).toBe(403);
    for (const bad of ['2606:4700::1', '10.1.2.3', '127.0.0.1', 'x', '1.2.3']) {
      const r = await get(bad, reader);
      expect(r.statusCode, bad).toBe(400);
      expect(r.json().data.code).toBe('INVALID_IP');
    }
    const r = await get('45.33.27.1', reader);
    expect(r.json().data).toEqual({
      subnet: '45.33.27.0/24',
      total_ips_seen: 0,
      listed_count: 0,
      avg_reputation: null,
      worst_score: null,
      contamination_level: 'clean',
    });
  });

  it.skipIf(skip)('warm-up: days from the first production sending, 60/min per key', async () => {
    const tele = await t.key(['telemetry:write']);
    const ip = '45.33.28.1';
    t.clock.advance(12 * HOUR_MS);
    const cold = await t.app.http.inject({
      url: `/v1/email/ip/${ip}/warmup`,
      headers: { 'x-api-key': reader },
    });
    expect(cold.json().data).toMatchObject({
      ip,
      status: 'cold',
      days_sending: 0,
      recommended_daily_volume: 50,
    });
    const ingest = await t.app.http.inject({
      method: 'POST',
      url: '/v1/email/telemetry/ingest',
      headers: { 'x-api-key': tele },
      payload: {
        observations: [
          { ip, volume_24h: 0 },
          { ip, volume_24h: 40, observed_at: toIso(t.clock() - HOUR_MS) },
        ],
      },
    });
    expect(ingest.json().data.accepted).toBe(2);
    t.clock.advance(9 * DAY_MS);
    const warming = await t.app.http.inject({
      url: `/v1/email/ip/${ip}/warmup`,
      headers: { 'x-api-key': reader },
    });
    expect(warming.statusCode).toBe(200);
    expect(warming.json().data).toMatchObject({
      status: 'warming',
      days_sending: 10,
      reputation_score: 60,
      recommended_daily_volume: 200,
      auto_pause_recommended: false,
      auto_pause_reason: null,
      next_milestone: utcDay(t.clock() + 5 * DAY_MS),
      next_milestone_volume: 500,
    });
    let last = 200;
    for (let i = 0; i < 58; i++) {
      last = (await t.app.http.inject({ url: `/v1/email/ip/${ip}/warmup`, headers: { 'x-api-key': reader } }))
        .statusCode;
    }
    expect(last).toBe(200);
    const over = await t.app.http.inject({
      url: `/v1/email/ip/${ip}/warmup`,
      headers: { 'x-api-key': reader },
    });
    expect(over.statusCode).toBe(429);
    // The bucket is per key: another key still gets an answer.
    const other = await t.key(['email:read']);
    expect(
      (await t.app.http.inject({ url: `/v1/email/ip/${ip}/warmup`, headers: { 'x-api-key': other } }))
        .statusCode,
    ).toBe(200);
  });

  it.skipIf(skip)(
    'a closed store gives 503 EVIDENCE_UNAVAILABLE on single and batch, never a score',
    async () => {
      expect((await reputationOf(t, '45.33.29.1')).status).toBe(200);
      if (t.app.store.pgPool) await t.app.store.pgPool.end();
      else t.app.store.sqlite?.close();
      const single = await reputationOf(t, '45.33.29.1');
      expect(single.status).toBe(503);
      expect(single.body.data).toEqual({
        code: 'EVIDENCE_UNAVAILABLE',
        error: 'reputation evidence is unavailable; no score is synthesized',
      });
      // Answers asked for together share one read: every one of them is unavailable.
      const together = await Promise.all(
        ['45.33.29.1', '45.33.29.2', '45.33.30.1'].map((ip) => reputationOf(t, ip)),
      );
      for (const r of together) {
        expect(r.status).toBe(503);
        expect(r.body.data).toMatchObject({ code: 'EVIDENCE_UNAVAILABLE' });
      }
      const b = await batch(t, ['45.33.29.1', '45.33.29.2']);
      expect(b.status).toBe(503);
      expect(b.body.data).toMatchObject({ code: 'EVIDENCE_UNAVAILABLE' });
      expect(JSON.stringify(b.body)).not.toContain('score"');
    },
  );
});
