/**
 * netrep_webhook_dead_letters_total and netrep_audit_lease_takeovers_total on the real app's
 * /metrics: a webhook whose only attempt fails is dead and counted; an audit job whose worker
 * stopped renewing its lease is taken over and counted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { createAuditStore } from '../audit/index.ts';

describe('dead letters and lease takeovers on /metrics', () => {
  let t: IntelTestApp;
  beforeAll(async () => {
    // No timers: the test runs each pass. One attempt per delivery; the hook is on 127.0.0.1.
    t = await createIntelTestApp('sqlite', {
      config: { workers: false, webhookMaxAttempts: 1, webhookAllowPrivate: true },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const sample = async (name: string): Promise<number> => {
    const text = (await t.app.http.inject({ method: 'GET', url: '/metrics' })).body;
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return Number(line?.split(' ')[1]);
  };

  it('a webhook delivery whose last attempt failed counts as a dead letter', async () => {
    expect(await sample('netrep_webhook_dead_letters_total')).toBe(0);
    // Port 9 on 127.0.0.1: nothing listens, the attempt is refused at once.
    const hook = await t.app.services.webhooks.createHook(t.adminId, 'http://127.0.0.1:9/hook', undefined);
    await t.app.services.webhooks.ping(t.adminId, hook.id);
    expect(await t.app.webhookWorker.runOnce()).toBe(1);
    const [attempt] = (await t.app.services.webhooks.deliveries(t.adminId, hook.id, 10, 0)) ?? [];
    expect(attempt?.status).toBe('dead');
    expect(await sample('netrep_webhook_dead_letters_total')).toBe(1);
  });

  it('an audit job taken over after its lease expired counts as a takeover', async () => {
    expect(await sample('netrep_audit_lease_takeovers_total')).toBe(0);
    const key = await t.key({ permissions: ['audit:write'] });
    const res = await t.app.http.inject({
      method: 'POST',
      url: '/v1/audit/jobs',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({
        cidrs: ['198.51.100.0/30'],
        dataset_version: t.app.services.datasetVersion(),
        seed: 'takeover',
      }),
    });
    expect(res.statusCode).toBe(202);
    const jobId = res.json().data.job.id as number;
    // A worker claims the job for 1 s and is never heard of again.
    const store = createAuditStore(t.app.store);
    expect((await store.claim('gone-worker', t.clock(), 1000))?.job.id).toBe(jobId);
    t.clock.advance(2000);
    const ended = await t.app.auditWorker.runOnce();
    expect(ended.map((e) => e.jobId)).toEqual([jobId]);
    expect((await store.events(jobId)).map((e) => e.event_type)).toContain('takeover');
    expect(await sample('netrep_audit_lease_takeovers_total')).toBe(1);
  });
});
