/** NETREP_METRICS_LISTEN on the real app: unset (main listener), `off`, and a listener of its own. */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.ts';
import { metricsPlacement } from './metrics-listener.ts';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function started(metricsListen: string): Promise<{ base: string; app: TestApp['app'] }> {
  t = await createTestApp('sqlite', { config: { metricsListen } });
  return { base: await t.app.listen(), app: t.app };
}

describe('NETREP_METRICS_LISTEN', () => {
  it('reads unset, off and host:port; refuses anything else', () => {
    expect(metricsPlacement('')).toEqual({ kind: 'main' });
    expect(metricsPlacement(' OFF ')).toEqual({ kind: 'off' });
    expect(metricsPlacement('127.0.0.1:9464')).toEqual({
      kind: 'separate',
      address: { host: '127.0.0.1', port: 9464 },
    });
    expect(() => metricsPlacement('127.0.0.1')).toThrow(/NETREP_METRICS_LISTEN/);
    expect(() => metricsPlacement('127.0.0.1:99999')).toThrow(/NETREP_METRICS_LISTEN/);
  });

  it('unset: /metrics on the main listener', async () => {
    const { base, app } = await started('');
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('netrep_http_requests_total');
    expect(app.metricsUrl).toBeNull();
  });

  it('off: no /metrics anywhere', async () => {
    const { base, app } = await started('off');
    const res = await fetch(`${base}/metrics`);
    expect([res.status, ((await res.json()) as { data: { code: string } }).data.code]).toEqual([
      404,
      'NOT_FOUND',
    ]);
    expect(app.metricsUrl).toBeNull();
  });

  it('host:port: /metrics on its own listener, counting the main listener requests, and not on the main one', async () => {
    const { base, app } = await started('127.0.0.1:0');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    const url = app.metricsUrl;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toMatch(
      /netrep_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1/,
    );
    expect((await fetch(`${url}/healthz`)).status).toBe(404);
  });

  it('listenMetrics() alone (netrep worker): /metrics on its own listener, without the API', async () => {
    t = await createTestApp('sqlite', { config: { metricsListen: '127.0.0.1:0' } });
    const url = await t.app.listenMetrics();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(t.app.metricsUrl).toBe(url);
    expect(await t.app.listenMetrics()).toBe(url);
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toContain('netrep_webhook_dead_letters_total 0');
    expect(text).toContain('netrep_audit_lease_takeovers_total 0');
    await t.close();
    t = await createTestApp('sqlite', { config: { metricsListen: '' } });
    expect(await t.app.listenMetrics()).toBeNull();
  });

  it('a taken metrics port fails listen() loudly', async () => {
    const { app } = await started('127.0.0.1:0');
    const port = Number(new URL(app.metricsUrl ?? '').port);
    const other = await createTestApp('sqlite', { config: { metricsListen: `127.0.0.1:${port}` } });
    try {
      await expect(other.app.listen()).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await other.close();
    }
  });
});
