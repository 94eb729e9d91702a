/**
 * The dashboard's audit pages through the real app: sign in, see only one's own jobs and their
 * gate, open a job to its reasons and observations, start one from the form, cancel it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntelTestApp, type IntelTestApp } from '../../test/helpers/intel-app.ts';
import { createAuditStore } from '../audit/index.ts';

describe('dashboard audit jobs page', () => {
  let t: IntelTestApp;
  let cookie = '';
  let csrf = '';
  let mineId = 0;
  let otherId = 0;
  const form = (url: string, fields: Record<string, string>) =>
    t.app.http.inject({
      method: 'POST',
      url,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
    });

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
    const other = await t.app.services.audit.create(
      { ips: ['192.0.2.2'], dataset_version: version, seed: 'someone-else' },
      { ownerId: t.adminId, keyId: null },
    );
    mineId = mine.job.id;
    otherId = other.job.id;
    const store = createAuditStore(t.app.store);
    await store.claim('w', t.clock(), 60_000, mine.job.id);
    const [target] = await store.targets(mine.job.id);
    const observed = {
      jobId: mine.job.id,
      targetId: target?.id ?? 0,
      address: '192.0.2.1',
      observedAt: t.clock(),
      expiresAt: null,
    };
    await store.insertObservations([
      {
        ...observed,
        kind: 'dnsbl',
        sourceKey: 'bl.netrep.test',
        outcome: 'not_listed',
        rawCodes: [],
        rawProviderResponse: { rcode: 'NXDOMAIN', txt: [] },
      },
      {
        ...observed,
        kind: 'dnsbl',
        sourceKey: 'zen.example',
        outcome: 'listed',
        rawCodes: ['127.0.0.4'],
        rawProviderResponse: { rcode: 'NOERROR', txt: ['<i>exploited host</i>'] },
      },
      {
        ...observed,
        kind: 'fcrdns',
        sourceKey: 'fcrdns',
        outcome: 'fail',
        rawCodes: [],
        rawProviderResponse: { ptr_hostname: 'host.example', forward_match: false },
      },
    ]);
    await store.finish(
      mine.job.id,
      'w',
      {
        status: 'succeeded',
        finalInterpretation: {
          addresses: 1,
          zones: {
            'bl.netrep.test': { listed: 0, not_listed: 1, error: 0, timeout: 0 },
            'zen.example': { listed: 1, not_listed: 0, error: 0, timeout: 0 },
          },
          fcrdns: { pass: 0, fail: 1, unknown: 0 },
          acceptance: { gate: 'review', reasons: ['1 of 1 addresses is listed on zen.example'] },
        },
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
    csrf =
      (await t.app.services.accounts.session(decodeURIComponent(cookie.split('=')[1] ?? '')))?.csrf ?? '';
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
    expect(res.body).toContain(`<a href="/dashboard/audit/${mineId}">Job ${mineId}</a>`);
    expect(res.body).toContain('<form method="post" action="/dashboard/audit">');
  });

  it('opens a job to its gate, the reasons, the counts per list and the observations (listed first)', async () => {
    const res = await t.app.http.inject({ url: `/dashboard/audit/${mineId}`, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<h1>Audit job ${mineId}</h1>`);
    expect(res.body).toContain('<li>1 of 1 addresses is listed on zen.example</li>');
    expect(res.body).toContain(
      '<td data-label="List"><code>zen.example</code></td><td data-label="Listed">1</td>',
    );
    expect(res.body).toContain('FCrDNS: 0 pass, 1 fail, 0 unknown.');
    const outcomes = [...res.body.matchAll(/class="outcome-([a-z_]+)"/g)].map((m) => m[1]);
    expect(outcomes).toEqual(['listed', 'fail', 'not_listed']);
    expect(res.body).toContain('127.0.0.4 · &lt;i&gt;exploited host&lt;/i&gt;');
    expect(res.body).toContain('PTR host.example');
    const theirs = await t.app.http.inject({ url: `/dashboard/audit/${otherId}`, headers: { cookie } });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.body).toContain('No such audit job.');
  });

  it('starts a job from the form, refuses a bad one with the values kept, and cancels it', async () => {
    const version = String(t.app.services.datasetVersion());
    const bad = await form('/dashboard/audit', { targets: '', dataset_version: version, seed: 'kept-seed' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Give at least one target');
    expect(bad.body).toContain('value="kept-seed"');
    const wrong = await form('/dashboard/audit', {
      targets: '192.0.2.300',
      dataset_version: version,
      seed: 's',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('role="alert"');
    const made = await form('/dashboard/audit', {
      targets: '192.0.2.8, 198.51.100.0/30',
      dataset_version: version,
      seed: 'from-the-form',
      max_samples: '3',
      acceptance: 'true',
    });
    expect(made.statusCode).toBe(303);
    const id = Number(/^\/dashboard\/audit\/(\d+)$/.exec(String(made.headers.location))?.[1]);
    const job = await t.app.services.audit.get(
      id,
      (await t.app.services.accounts.session(decodeURIComponent(cookie.split('=')[1] ?? '')))?.user.id ?? 0,
    );
    expect(job).toMatchObject({ status: 'queued', seed: 'from-the-form' });
    expect((job?.sampling_manifest as { sample_size?: number } | undefined)?.sample_size).toBe(3);
    const page = await t.app.http.inject({ url: `/dashboard/audit/${id}`, headers: { cookie } });
    expect(page.body).toContain(`action="/dashboard/audit/${id}/cancel"`);
    const cancelled = await form(`/dashboard/audit/${id}/cancel`, {});
    expect([cancelled.statusCode, cancelled.headers.location]).toEqual([303, `/dashboard/audit/${id}`]);
    expect((await t.app.http.inject({ url: `/dashboard/audit/${id}`, headers: { cookie } })).body).toContain(
      'cancelled',
    );
  });

  it('sends a visitor without a session to sign in', async () => {
    const res = await t.app.http.inject({ method: 'GET', url: '/dashboard/audit' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/login');
  });
});
