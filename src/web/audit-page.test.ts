/** The dashboard's audit page through the real app: sign in, see only one's own jobs and their gate. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { createAuditStore } from '../audit/index.ts';

describe('dashboard audit jobs page', () => {
  let t: IntelTestApp;
  let cookie = '';

  beforeAll(async () => {
    t = await createIntelTestApp('sqlite', { config: { workers: false } });
    const { user } = await t.app.services.accounts.createUser({
      email: 'auditor@example.test',
      password: 'auditor-password-1',
      role: 'member',
    });
    const version = t.app.services.datasetVersion() as number;
    const mine = await t.app.services.audit.create(
      { ips: ['192.0.2.1'], dataset_version: version, seed: '<b>mine</b>', acceptance: true },
      { ownerId: user.id, keyId: null },
    );
    await t.app.services.audit.create(
      { ips: ['192.0.2.2'], dataset_version: version, seed: 'someone-else' },
      { ownerId: t.adminId, keyId: null },
    );
    const store = createAuditStore(t.app.store);
    await store.claim('w', t.clock(), 60_000, mine.job.id);
    await store.finish(
      mine.job.id,
      'w',
      {
        status: 'succeeded',
        finalInterpretation: { acceptance: { gate: 'review', reasons: [] } },
        errorDetail: null,
        progress: { done: 3, planned: 3 },
        event: { type: 'completed', actor: 'worker:w' },
      },
      t.clock(),
    );
    const login = await t.app.http.inject({
      method: 'POST',
      url: '/dashboard/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=auditor%40example.test&password=auditor-password-1',
    });
    expect(login.statusCode).toBe(303);
    cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('lists the signed-in user’s jobs with status and gate, escaped', async () => {
    const res = await t.app.http.inject({ method: 'GET', url: '/dashboard/audit', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('succeeded');
    expect(res.body).toContain('gate-review');
    expect(res.body).toContain('&lt;b&gt;mine&lt;/b&gt;');
    expect(res.body).not.toContain('<b>mine</b>');
    expect(res.body).not.toContain('someone-else');
    expect(res.body).toContain('href="/dashboard/audit"');
  });

  it('sends a visitor without a session to sign in', async () => {
    const res = await t.app.http.inject({ method: 'GET', url: '/dashboard/audit' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/login');
  });
});
