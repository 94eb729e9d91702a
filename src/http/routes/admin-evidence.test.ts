/**
 * POST /v1/admin/evidence on both stores (CONTRACT §4): admin only, 1-1000 events, each
 * validated on its own (10 years back at most, never in the future), synthetic events stored
 * but never scored nor used as the age anchor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createReputationTestApp,
  nextClientIp,
  type ReputationTestApp,
} from '../../../test/helpers/reputation-app.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import { DAY_MS, toIso } from '../../core/clock.ts';

describe.each(STORE_KINDS)('admin evidence (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: ReputationTestApp;
  let admin: string;

  const post = async (events: unknown, key = admin) => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/v1/admin/evidence',
      headers: { 'x-api-key': key },
      payload: { events },
    });
    return { status: res.statusCode, data: res.json().data };
  };
  const factorsOf = async (ip: string) => {
    const res = await t.app.http.inject({
      url: `/v1/email/ip/${ip}/reputation`,
      remoteAddress: nextClientIp(),
    });
    return res.json().data as { score: number; factors: { name: string; impact: number }[] };
  };

  beforeAll(async () => {
    if (skip) return;
    t = await createReputationTestApp(kind, '2026-03-15T12:00:00Z');
    admin = await t.key(['admin']);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.skipIf(skip)('admin only; 1-1000 events', async () => {
    const ev = { ip: '45.33.60.1', kind: 'pristine_trap', observed_at: toIso(t.clock()) };
    expect((await post([ev], await t.key(['email:read', 'telemetry:write']))).status).toBe(403);
    expect((await post([])).data.code).toBe('INVALID_BODY');
    expect((await post(Array.from({ length: 1001 }, () => ev))).status).toBe(400);
    expect((await post(Array.from({ length: 1000 }, () => ev))).data).toEqual({
      accepted: 1000,
      rejected: 0,
      errors: [],
    });
  });

  it.skipIf(skip)('each event on its own: dates within 10 years and not in the future', async () => {
    const now = t.clock();
    const ip = '45.33.61.1';
    const res = await post([
      { ip, kind: 'recycled_trap', observed_at: toIso(now - 3650 * DAY_MS) },
      { ip, kind: 'recycled_trap', observed_at: '2016-03-15T11:59:59Z' },
      { ip, kind: 'typo_trap', observed_at: toIso(now + 3_600_000) },
      { ip, kind: 'spam_trap', observed_at: toIso(now) },
      { ip: '999.1.1.1', kind: 'typo_trap', observed_at: toIso(now) },
      { ip, kind: 'smtp_honeypot' },
      { ip, kind: 'smtp_honeypot', observed_at: toIso(now), synthetic: 'yes' },
      { ip, kind: 'smtp_honeypot', observed_at: toIso(now), source: 'x'.repeat(201) },
      { ip, kind: 'smtp_honeypot', observed_at: toIso(now - DAY_MS), source: 'honeypot-eu-1' },
    ]);
    expect(res.data.accepted).toBe(2);
    expect(res.data.rejected).toBe(7);
    expect(res.data.errors.map((e: string) => e.slice(0, 10))).toEqual([
      'events[1]:',
      'events[2]:',
      'events[3]:',
      'events[4]:',
      'events[5]:',
      'events[6]:',
      'events[7]:',
    ]);
    const f = await factorsOf(ip);
    expect(f.factors).toContainEqual({ name: 'smtp_honeypot', impact: -15, detail: expect.any(String) });
    expect(f.factors).toContainEqual({ name: 'ip_age_days', impact: 20, detail: expect.any(String) });
  });

  it.skipIf(skip)('synthetic events are stored but never scored nor used as the age anchor', async () => {
    const now = t.clock();
    const ip = '45.33.62.1';
    const before = await factorsOf(ip);
    const res = await post([
      { ip, kind: 'pristine_trap', observed_at: toIso(now - DAY_MS), synthetic: true },
      { ip, kind: 'smtp_honeypot', observed_at: toIso(now - 400 * DAY_MS), synthetic: true },
    ]);
    expect(res.data.accepted).toBe(2);
    const rows = await t.app.store.db
      .selectFrom('reputation_evidence')
      .select('synthetic')
      .where('ip', '=', ip)
      .execute();
    expect(rows.map((r) => Number(r.synthetic))).toEqual([1, 1]);
    const after = await factorsOf(ip);
    expect(after.score).toBe(before.score);
    expect(after.factors.map((x) => x.name)).toEqual(before.factors.map((x) => x.name));
    await post([{ ip, kind: 'pristine_trap', observed_at: toIso(now - DAY_MS) }]);
    const real = await factorsOf(ip);
    expect(real.factors).toContainEqual({
      name: 'pristine_trap_hits',
      impact: -15,
      detail: expect.any(String),
    });
    expect(real.factors).toContainEqual({ name: 'ip_age_days', impact: 0, detail: expect.any(String) });
  });
});
