/**
 * Audit job routes on both stores (CONTRACT §1, §2, §10): create 202, reuse 200 only for the same
 * owner while fresh, every §2.11 validation code, owner scoping (404), list, result, cancel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../../test/helpers/intel-app.ts';
import { STORE_KINDS, skipStore } from '../../../test/helpers/stores.ts';
import { createAuditStore } from '../../audit/index.ts';

/** The answer as JSON.parse gives it: nested fields are read without a cast in each assertion. */
type Json = ReturnType<typeof JSON.parse>;
type Body = { data: Record<string, Json>; meta: Record<string, unknown> };

describe.each(STORE_KINDS)('audit job routes on %s', (kind) => {
  let t: IntelTestApp;
  let key: string;
  let otherKey: string;
  let version: number;

  const call = async (method: 'GET' | 'POST', url: string, payload?: unknown, k: string = key) => {
    const res = await t.app.http.inject({
      method,
      url,
      headers: { 'x-api-key': k, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined
        ? {}
        : { payload: typeof payload === 'string' ? payload : JSON.stringify(payload) }),
    });
    return { status: res.statusCode, body: res.json() as Body, raw: res.body };
  };
  const create = (payload: unknown, k?: string) => call('POST', '/v1/audit/jobs', payload, k);

  beforeAll(async () => {
    if (skipStore(kind)) return;
    // No audit worker: the jobs stay as the routes leave them.
    t = await createIntelTestApp(kind, { config: { workers: false } });
    version = t.app.services.datasetVersion() as number;
    key = await t.key({ permissions: ['audit:write'] });
    otherKey = await t.key({ permissions: ['audit:write'], ownerId: await t.user() });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it.skipIf(skipStore(kind))(
    'creates a queued job with a deterministic sample and a created event',
    async () => {
      const r = await create({
        targets: ['AS64500', '192.0.2.7'],
        cidrs: ['198.51.100.0/30'],
        dataset_version: version,
        seed: 'alpha',
        max_samples: 20,
      });
      expect(r.status).toBe(202);
      expect(r.body.data.reused).toBe(false);
      const job = r.body.data.job;
      expect(job.status).toBe('queued');
      expect(job.request_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(job.request).toMatchObject({ ips: ['192.0.2.7'], cidrs: ['198.51.100.0/30'], asns: [64500] });
      expect(job.sampling_manifest).toMatchObject({
        method: 'hmac-sha256-draws-v2',
        population: 65536 + 1 + 4,
        sample_size: 20,
      });
      expect(job.sampling_manifest.addresses).toHaveLength(20);
      expect(job.progress).toEqual({ done: 0, planned: 40 });
      expect(job.cancel_requested).toBe(false);

      const result = await call('GET', `/v1/audit/jobs/${job.id}/result`);
      expect(result.status).toBe(200);
      expect(result.body.data.targets.map((x: { target: string }) => x.target)).toEqual(
        job.sampling_manifest.addresses,
      );
      expect(result.body.data.events).toMatchObject([
        { event_type: 'created', actor: expect.stringMatching(/^key:\d+$/) },
      ]);
      expect(result.body.data.observations).toEqual([]);

      // Same request in another spelling and another owner: the same sample, never the same job.
      const again = await create(
        {
          ips: ['192.0.2.7'],
          asns: [64500],
          targets: ['198.51.100.1/30'],
          dataset_version: version,
          seed: 'alpha',
          max_samples: 20,
        },
        otherKey,
      );
      expect(again.status).toBe(202);
      expect(again.body.data.job.request_hash).toBe(job.request_hash);
      expect(again.body.data.job.sampling_manifest.addresses).toEqual(job.sampling_manifest.addresses);
      expect(again.body.data.job.id).not.toBe(job.id);
    },
  );

  it.skipIf(skipStore(kind))('reuses a succeeded job of the same owner while it is fresh', async () => {
    const body = { ips: ['203.0.113.9'], dataset_version: version, seed: 'reuse', freshness_seconds: 60 };
    const first = await create(body);
    expect(first.status).toBe(202);
    // A queued job is not reused.
    expect((await create(body)).body.data.reused).toBe(false);
    const store = createAuditStore(t.app.store);
    // Finish every queued job of this request through the worker interface.
    for (;;) {
      const c = await store.claim('test', t.clock(), 60_000);
      if (!c) break;
      await store.finish(
        c.job.id,
        'test',
        {
          status: 'succeeded',
          finalInterpretation: {},
          errorDetail: null,
          progress: {},
          event: { type: 'completed', actor: 'worker:test' },
        },
        t.clock(),
      );
    }
    const reused = await create(body);
    expect(reused.status).toBe(200);
    expect(reused.body.data.reused).toBe(true);
    expect(reused.body.data.job.status).toBe('succeeded');
    // Another owner never gets it.
    expect((await create(body, otherKey)).status).toBe(202);
    // After the window: a new job.
    t.clock.advance(61_000);
    expect((await create(body)).status).toBe(202);
  });

  it.skipIf(skipStore(kind))('answers every validation failure with its 400 code', async () => {
    const base = { dataset_version: version, seed: 's' };
    const cases: [unknown, string][] = [
      [{ ...base, ips: ['1.2.3.4'], dataset_version: version + 100 }, 'DATASET_VERSION_UNAVAILABLE'],
      [{ ...base, asns: [15169] }, 'POPULATION_TOO_LARGE'],
      [{ ...base, cidrs: ['10.0.0.0/8'] }, 'POPULATION_TOO_LARGE'],
      [{ ...base, cidrs: ['10.0.0.0/24'], max_population: 255 }, 'POPULATION_TOO_LARGE'],
      [{ ...base, ips: ['1.2.3.256'] }, 'INVALID_IP'],
      [{ ...base, ips: ['1.2.3.0/24'] }, 'INVALID_IP'],
      [{ ...base, cidrs: ['1.2.3.0/33'] }, 'INVALID_IP'],
      [{ ...base, targets: ['<script>'] }, 'INVALID_IP'],
      [{ ...base, asns: [0] }, 'INVALID_ASN'],
      [{ ...base, asns: [4294967296] }, 'INVALID_ASN'],
      [{ ...base, targets: ['AS4294967296'] }, 'INVALID_ASN'],
      [{ ...base }, 'INVALID_BODY'],
      [{ ...base, ips: [] }, 'INVALID_BODY'],
      [{ ips: ['1.2.3.4'], seed: 's' }, 'INVALID_BODY'],
      [{ ...base, ips: ['1.2.3.4'], dataset_version: 0 }, 'INVALID_BODY'],
      [{ ...base, ips: ['1.2.3.4'], seed: '' }, 'INVALID_BODY'],
      [{ ips: ['1.2.3.4'], dataset_version: version }, 'INVALID_BODY'],
      [{ ...base, ips: ['1.2.3.4'], max_samples: 0 }, 'INVALID_BODY'],
      [{ ...base, ips: ['1.2.3.4'], max_samples: 10001 }, 'INVALID_BODY'],
      [{ ...base, ips: ['1.2.3.4'], max_population: 0 }, 'INVALID_BODY'],
      [{ ...base, ips: ['1.2.3.4'], freshness_seconds: 0 }, 'INVALID_BODY'],
      [{ ...base, ips: ['1.2.3.4'], freshness_seconds: 86401 }, 'INVALID_BODY'],
      [{ ...base, ips: ['1.2.3.4'], acceptance: 'yes' }, 'INVALID_BODY'],
      [{ ...base, ips: ['1.2.3.4'], zones: ['zen.spamhaus.org'] }, 'INVALID_BODY'],
      [{ ...base, ips: ['1.2.3.4'], resolvers: ['8.8.8.8'] }, 'INVALID_BODY'],
      [{ ...base, ips: ['1.2.3.4'], budget: 1 }, 'INVALID_BODY'],
      [{ ...base, cidrs: Array.from({ length: 33 }, (_, i) => `10.0.${i}.0/30`) }, 'INVALID_BODY'],
      [{ ...base, targets: Array.from({ length: 33 }, (_, i) => `10.0.0.${i}`) }, 'INVALID_BODY'],
      [{ ...base, asns: Array.from({ length: 33 }, (_, i) => i + 1) }, 'INVALID_BODY'],
      // Over 32 ips: the batch cap's own code, as on every route with an `ips` list (documented).
      [{ ...base, ips: Array.from({ length: 33 }, (_, i) => `10.0.0.${i}`) }, 'TOO_MANY_IPS'],
      [{ ...base, ips: 'not a list' }, 'INVALID_BODY'],
      ['{"dataset_version":', 'INVALID_BODY'],
      ['[]', 'INVALID_BODY'],
      [
        `{"dataset_version":${version},"seed":"s","ips":["1.2.3.4"],"__proto__":{"admin":true}}`,
        'INVALID_BODY',
      ],
      [
        `{"dataset_version":${version},"seed":"s","ips":["1.2.3.4"],"constructor":{"prototype":{}}}`,
        'INVALID_BODY',
      ],
    ];
    for (const [payload, code] of cases) {
      const r = await create(payload);
      expect({ payload, status: r.status, code: r.body.data.code }).toEqual({ payload, status: 400, code });
      expect(r.raw).not.toMatch(/at .*\.ts:\d+/);
    }
  });

  it.skipIf(skipStore(kind))('scopes every job to its owner: another owner gets 404', async () => {
    const mine = (await create({ ips: ['192.0.2.55'], dataset_version: version, seed: 'own' })).body.data.job;
    for (const url of [`/v1/audit/jobs/${mine.id}`, `/v1/audit/jobs/${mine.id}/result`]) {
      const r = await call('GET', url, undefined, otherKey);
      expect(r.status).toBe(404);
      expect(r.body.data.code).toBe('NOT_FOUND');
    }
    expect((await call('POST', `/v1/audit/jobs/${mine.id}/cancel`, undefined, otherKey)).status).toBe(404);
    const theirs = (await call('GET', '/v1/audit/jobs?limit=100', undefined, otherKey)).body.data.jobs;
    expect(theirs.map((j: { id: number }) => j.id)).not.toContain(mine.id);
    expect((await call('GET', `/v1/audit/jobs/${mine.id}`)).body.data.id).toBe(mine.id);
    for (const bad of ['0', '-1', 'abc', '1e3', '99999999999999999999', '%00']) {
      const r = await call('GET', `/v1/audit/jobs/${bad}`);
      expect([400, 404]).toContain(r.status);
    }
    expect((await call('GET', '/v1/audit/jobs/987654')).status).toBe(404);
    expect((await call('GET', '/v1/audit/jobs?limit=0')).body.data.code).toBe('INVALID_PARAMETER');
    expect((await call('GET', '/v1/audit/jobs?offset=-1')).body.data.code).toBe('INVALID_PARAMETER');
  });

  it.skipIf(skipStore(kind))('lists own jobs newest first with limit and offset', async () => {
    const k = await t.key({ permissions: ['audit:write'], ownerId: await t.user() });
    const ids: number[] = [];
    for (const seed of ['a', 'b', 'c']) {
      ids.push((await create({ ips: ['192.0.2.1'], dataset_version: version, seed }, k)).body.data.job.id);
    }
    const page = await call('GET', '/v1/audit/jobs?limit=2&offset=0', undefined, k);
    expect(page.body.data.jobs.map((j: { id: number }) => j.id)).toEqual([ids[2], ids[1]]);
    expect(page.body.data).toMatchObject({ count: 2, limit: 2, offset: 0 });
    const next = await call('GET', '/v1/audit/jobs?limit=2&offset=2', undefined, k);
    expect(next.body.data.jobs.map((j: { id: number }) => j.id)).toEqual([ids[0]]);
  });

  it.skipIf(skipStore(kind))('cancel closes a queued job at once and flags a running one', async () => {
    const k = await t.key({ permissions: ['audit:write'], ownerId: await t.user() });
    const queued = (await create({ ips: ['192.0.2.2'], dataset_version: version, seed: 'q' }, k)).body.data
      .job;
    const c = await call('POST', `/v1/audit/jobs/${queued.id}/cancel`, undefined, k);
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ cancellation_accepted: true, job: { status: 'cancelled' } });
    const again = await call('POST', `/v1/audit/jobs/${queued.id}/cancel`, undefined, k);
    expect(again.body.data).toMatchObject({ cancellation_accepted: false, job: { status: 'cancelled' } });
    const events = (await call('GET', `/v1/audit/jobs/${queued.id}/result`, undefined, k)).body.data.events;
    expect(events.map((e: { event_type: string }) => e.event_type)).toEqual([
      'created',
      'cancel_requested',
      'cancelled',
    ]);

    const store = createAuditStore(t.app.store);
    const running = (await create({ ips: ['192.0.2.3'], dataset_version: version, seed: 'r' }, k)).body.data
      .job;
    let claimed = await store.claim('w1', t.clock(), 60_000);
    while (claimed && claimed.job.id !== running.id) claimed = await store.claim('w1', t.clock(), 60_000);
    const r = await call('POST', `/v1/audit/jobs/${running.id}/cancel`, undefined, k);
    expect(r.body.data).toMatchObject({
      cancellation_accepted: true,
      job: { status: 'running', cancel_requested: true },
    });
  });

  it.skipIf(skipStore(kind))('needs audit:write', async () => {
    const reader = await t.key({ permissions: ['ip:read'] });
    const r = await create({ ips: ['192.0.2.1'], dataset_version: version, seed: 'x' }, reader);
    expect(r.status).toBe(403);
    expect(r.body.data.code).toBe('FORBIDDEN');
  });
});
