/**
 * POST /v1/email/telemetry/ingest on both stores: authentication codes, size rules, and a
 * mix of 100 valid and hostile observations of which exactly the valid ones are stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReputationTestApp, type ReputationTestApp } from '../../../test/helpers/reputation-app.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import { toIso } from '../../core/clock.ts';

const HOUR_MS = 3_600_000;

/** 100 observations: valid ones carry a distinct volume_24h; hostile ones say why they fail. */
function mixedObservations(now: number): { raw: unknown[]; valid: Map<number, number> } {
  const hostile: unknown[] = [
    { ip: '1.2.3.256', volume_24h: 1 },
    { ip: '<script>alert(1)</script>', volume_24h: 1 },
    { ip: 16909060, volume_24h: 1 },
    { ip: null, volume_24h: 1 },
    { volume_24h: 1 },
    { ip: '010.1.1.1', volume_24h: 1 },
    { ip: 'fe80::1%eth0', volume_24h: 1 },
    { ip: '1.2.3.4/24', volume_24h: 1 },
    { ip: '45.33.50.1', bounce_rate: -0.01 },
    { ip: '45.33.50.1', bounce_rate: 1.0000001 },
    { ip: '45.33.50.1', bounce_rate: '0.1' },
    { ip: '45.33.50.1', complaint_rate: 2 },
    { ip: '45.33.50.1', complaint_rate: true },
    { ip: '45.33.50.1', volume_24h: -1 },
    { ip: '45.33.50.1', volume_24h: 1.5 },
    { ip: '45.33.50.1', volume_24h: '100' },
    { ip: '45.33.50.1', volume_24h: 2 ** 60 },
    { ip: '45.33.50.1', volume_24h: 5, observed_at: toIso(now + 2 * HOUR_MS) },
    { ip: '45.33.50.1', volume_24h: 5, observed_at: toIso(now - 49 * HOUR_MS) },
    { ip: '45.33.50.1', volume_24h: 5, observed_at: 'yesterday' },
    { ip: '45.33.50.1', volume_24h: 5, observed_at: '2026-02-30T00:00:00Z' },
    { ip: '45.33.50.1', volume_24h: 5, observed_at: toIso(now).replace('Z', '') },
    { ip: '45.33.50.1', volume_24h: 5, observed_at: now },
    { ip: '45.33.50.1' },
    { ip: '45.33.50.1', bounce_rate: null, complaint_rate: null, volume_24h: null },
    [],
    'observation',
    null,
    42,
    { ip: 'x'.repeat(5000), volume_24h: 1 },
  ];
  const raw: unknown[] = [];
  const valid = new Map<number, number>();
  let h = 0;
  for (let i = 0; i < 100; i++) {
    if (i % 10 < 3 && h < hostile.length) {
      raw.push(hostile[h++]);
      continue;
    }
    const volume = 7000 + i;
    valid.set(i, volume);
    const forms: unknown[] = [
      { ip: `45.33.51.${i}`, volume_24h: volume },
      {
        ip: `::ffff:45.33.51.${i}`,
        bounce_rate: 0.02,
        volume_24h: volume,
        observed_at: toIso(now - 47 * HOUR_MS),
      },
      { ip: `2606:4700:${i.toString(16)}::1`, complaint_rate: 0.0005, volume_24h: volume, extra: 'ignored' },
      {
        ip: ` 45.33.52.${i} `,
        bounce_rate: 0,
        complaint_rate: 1,
        volume_24h: volume,
        observed_at: toIso(now - 1000).replace('Z', '+00:00'),
      },
    ];
    raw.push(forms[i % forms.length]);
  }
  return { raw, valid };
}

describe.each(STORE_KINDS)('telemetry ingest (%s)', (kind) => {
  const skip = skipStore(kind);
  let t: ReputationTestApp;
  let tele: string;

  const ingest = async (payload: unknown, key: string | null = tele) => {
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/v1/email/telemetry/ingest',
      headers: key === null ? {} : { 'x-api-key': key },
      payload: payload as object,
    });
    return { status: res.statusCode, data: res.json().data };
  };

  beforeAll(async () => {
    if (skip) return;
    t = await createReputationTestApp(kind);
    tele = await t.key(['telemetry:write']);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.skipIf(skip)(
    '401 AUTH_REQUIRED without a key, 401 UNAUTHORIZED with a bad one, 403 without telemetry:write',
    async () => {
      const body = { observations: [{ ip: '45.33.50.9', volume_24h: 1 }] };
      expect(await ingest(body, null)).toMatchObject({ status: 401, data: { code: 'AUTH_REQUIRED' } });
      expect(await ingest(body, 'nrp_nope')).toMatchObject({ status: 401, data: { code: 'UNAUTHORIZED' } });
      expect(await ingest(body, await t.key(['email:read']))).toMatchObject({
        status: 403,
        data: { code: 'FORBIDDEN' },
      });
    },
  );

  it.skipIf(skip)('shape: 1-100 observations', async () => {
    const obs = Array.from({ length: 101 }, (_, i) => ({ ip: `45.33.53.${i}`, volume_24h: 1 }));
    expect(await ingest({ observations: obs })).toMatchObject({
      status: 400,
      data: { code: 'TOO_MANY_OBSERVATIONS' },
    });
    expect(await ingest({ observations: [] })).toMatchObject({ status: 400, data: { code: 'INVALID_BODY' } });
    expect(await ingest({ observation: obs })).toMatchObject({ status: 400, data: { code: 'INVALID_BODY' } });
    expect(await ingest([1, 2])).toMatchObject({ status: 400, data: { code: 'INVALID_BODY' } });
    const stored = await t.app.store.db.selectFrom('telemetry_observations').select('id').execute();
    expect(stored).toEqual([]);
  });

  it.skipIf(skip)('100 valid and hostile observations: exactly the valid ones are stored', async () => {
    const now = t.clock();
    const { raw, valid } = mixedObservations(now);
    expect(raw).toHaveLength(100);
    const res = await ingest({ observations: raw });
    expect(res.status).toBe(200);
    expect(res.data.accepted).toBe(valid.size);
    expect(res.data.rejected).toBe(100 - valid.size);
    const rejectedIdx = res.data.errors.map((e: string) => Number(/^observations\[(\d+)\]: /.exec(e)?.[1]));
    const expectedIdx = raw.map((_, i) => i).filter((i) => !valid.has(i));
    expect(rejectedIdx).toEqual(expectedIdx);
    for (const e of res.data.errors as string[]) expect(e.length).toBeLessThan(200);
    const rows = await t.app.store.db
      .selectFrom('telemetry_observations')
      .select(['ip', 'volume_24h', 'observed_at', 'synthetic'])
      .execute();
    expect(rows.map((r) => Number(r.volume_24h)).sort()).toEqual([...valid.values()].sort());
    for (const r of rows) {
      expect(Number(r.synthetic)).toBe(0);
      expect(Number(r.observed_at)).toBeLessThanOrEqual(now);
      expect(Number(r.observed_at)).toBeGreaterThanOrEqual(now - 48 * HOUR_MS);
    }
    // Normalized addresses: the IPv4-mapped and padded forms are stored as plain IPv4.
    expect(rows.some((r) => r.ip.startsWith('::ffff:') || r.ip.startsWith(' '))).toBe(false);
  });

  it.skipIf(skip)('non-JSON, huge and wrong-type bodies never store anything', async () => {
    const before = (await t.app.store.db.selectFrom('telemetry_observations').select('id').execute()).length;
    const bad = await t.app.http.inject({
      method: 'POST',
      url: '/v1/email/telemetry/ingest',
      headers: { 'x-api-key': tele, 'content-type': 'application/json' },
      payload: '{"observations": [{"ip": "45.33.54.1", "volume_24h": 1e999}',
    });
    expect(bad.statusCode).toBe(400);
    const inf = await t.app.http.inject({
      method: 'POST',
      url: '/v1/email/telemetry/ingest',
      headers: { 'x-api-key': tele, 'content-type': 'application/json' },
      payload: '{"observations": [{"ip": "45.33.54.1", "volume_24h": 1e999, "bounce_rate": 1e999}]}',
    });
    expect(inf.json().data).toMatchObject({ accepted: 0, rejected: 1 });
    const after = (await t.app.store.db.selectFrom('telemetry_observations').select('id').execute()).length;
    expect(after).toBe(before);
  });
});
