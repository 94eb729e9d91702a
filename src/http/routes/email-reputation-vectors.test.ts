/**
 * Replays test/vectors/reputation-vectors.json through the HTTP API on both stores: evidence
 * through POST /v1/admin/evidence, telemetry through POST /v1/email/telemetry/ingest with the
 * clock set, listings through the blocklist module at their dates, FCrDNS through the
 * reputation service's recorder, dataset facts as data; then GET /v1/email/ip/{ip}/reputation
 * must give each vector's score, level and factors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createReputationTestApp,
  nextClientIp,
  type ReputationTestApp,
} from '../../../test/helpers/reputation-app.ts';
import { loadReputationVectors, type ReputationVector } from '../../../test/helpers/reputation-vectors.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import { DAY_MS, toIso } from '../../core/clock.ts';

const HOUR_MS = 3_600_000;
const { now, vectors } = loadReputationVectors();

/** Another address of the vector's /24 (IPv4 only). */
function neighbour(ip: string, k: number): string {
  return `${ip.split('.').slice(0, 3).join('.')}.${100 + k}`;
}

async function replay(t: ReputationTestApp, v: ReputationVector, keys: { admin: string; telemetry: string }) {
  const { app, clock } = t;
  const blocklist = app.services.blocklist;
  if (!blocklist) throw new Error('blocklist not wired');
  const ip = v.input.ip;
  for (const action of v.input.blocklist) {
    clock.set(now - action.age_days * DAY_MS);
    if (action.action === 'listed') {
      await blocklist.list({ ip, type: action.type ?? 'spam', reason: `vector: ${v.name}` });
    } else {
      await blocklist.delist(ip, { reason: 'vector' });
    }
  }
  clock.set(now);
  for (let k = 0; k < v.input.neighbor_listings; k++) {
    await blocklist.list({ ip: neighbour(ip, k), type: 'spam', reason: 'neighbour' });
  }
  if (v.input.evidence.length > 0) {
    const res = await app.http.inject({
      method: 'POST',
      url: '/v1/admin/evidence',
      headers: { 'x-api-key': keys.admin },
      payload: {
        events: v.input.evidence.map((e) => ({
          ip,
          kind: e.kind,
          observed_at: toIso(now - e.age_days * DAY_MS),
          synthetic: e.synthetic,
          source: 'vector',
        })),
      },
    });
    expect(res.json().data).toEqual({ accepted: v.input.evidence.length, rejected: 0, errors: [] });
  }
  if (v.input.telemetry.length > 0) {
    const res = await app.http.inject({
      method: 'POST',
      url: '/v1/email/telemetry/ingest',
      headers: { 'x-api-key': keys.telemetry },
      payload: {
        observations: v.input.telemetry.map((o) => ({
          ip,
          bounce_rate: o.bounce_rate,
          complaint_rate: o.complaint_rate,
          volume_24h: o.volume_24h,
          observed_at: toIso(now - o.age_hours * HOUR_MS),
        })),
      },
    });
    expect(res.json().data).toMatchObject({ accepted: v.input.telemetry.length, rejected: 0 });
  }
  if (v.input.fcrdns !== null) {
    await app.services.reputation?.recordFcrdns({
      ip,
      ptrHostname: 'mail.example.test',
      forwardMatch: v.input.fcrdns === 'pass',
      forwardIps: v.input.fcrdns === 'pass' ? [ip] : ['192.0.2.99'],
      lastCheckedAt: now - HOUR_MS,
      lastObservedAt: now - HOUR_MS,
    });
  }
  t.intel.set(ip, { datacenter: v.input.datacenter, geoChangeCount: v.input.geo_change_count });
}

describe.each(STORE_KINDS)('reputation vectors through the HTTP API (%s)', (kind) => {
  let t: ReputationTestApp;
  let keys: { admin: string; telemetry: string };
  const skip = skipStore(kind);

  beforeAll(async () => {
    if (skip) return;
    t = await createReputationTestApp(kind, toIso(now));
    keys = { admin: await t.key(['admin']), telemetry: await t.key(['telemetry:write']) };
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has at least 60 vectors, each naming its rule', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(60);
    for (const v of vectors) expect(v.rule).toMatch(/spec|CONTRACT/);
  });

  it.skipIf(skip).each(vectors.map((v) => [v.name, v] as const))('%s', async (_name, v) => {
    await replay(t, v, keys);
    const res = await t.app.http.inject({
      url: `/v1/email/ip/${encodeURIComponent(v.input.ip)}/reputation`,
      remoteAddress: nextClientIp(),
    });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data as {
      score: number;
      level: string;
      factors: { name: string; impact: number; detail: string }[];
      blocklist: { listed: boolean };
      subnet: { listed_count: number } | null;
      fcrdns: { forward_match: boolean } | null;
    };
    expect(data.factors.map((f) => ({ name: f.name, impact: f.impact }))).toEqual(v.expected.factors);
    expect(data.score).toBe(v.expected.score);
    expect(data.level).toBe(v.expected.level);
    const last = v.input.blocklist.at(-1);
    expect(data.blocklist.listed).toBe(last?.action === 'listed');
    if (v.input.ip.includes(':')) expect(data.subnet).toBeNull();
    else
      expect(data.subnet?.listed_count).toBe(v.input.neighbor_listings + (last?.action === 'listed' ? 1 : 0));
    expect(data.fcrdns === null).toBe(v.input.fcrdns === null);
  });
});
