/**
 * The fast path's tallies against prom-client itself: the same observations recorded through
 * recorderFor and fastPathCounter, and through plain prom-client metrics of the same names,
 * must export the same text; and the route hook's and the tallies' observations of one series
 * add up.
 */
import Fastify from 'fastify';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerMetrics } from './metrics.ts';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The lines of our series, without the default metrics. */
async function series(registry: Registry): Promise<string[]> {
  return (await registry.metrics())
    .split('\n')
    .filter((l) => /^netrep_http_(requests_total|request_duration_seconds|fast_path_total)/.test(l))
    .sort();
}

/** prom-client's own metrics, the reference. */
function reference(registry: Registry) {
  const labels = ['method', 'route', 'status'] as const;
  return {
    fastPath: new Counter({
      name: 'netrep_http_fast_path_total',
      help: 'x',
      labelNames: ['transport'] as const,
      registers: [registry],
    }),
    requests: new Counter({
      name: 'netrep_http_requests_total',
      help: 'x',
      labelNames: labels,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'netrep_http_request_duration_seconds',
      help: 'x',
      labelNames: labels,
      buckets: BUCKETS,
      registers: [registry],
    }),
  };
}

/** A request's duration: 30 % one of `values`, else a small random one. */
function durationOf(rand: () => number, values: readonly number[]): number {
  return rand() < 0.3 ? (values[Math.floor(rand() * values.length)] as number) : rand() * rand() * 0.02;
}

/**
 * Two scrapes line for line: the same series and values. The sums may differ in the last bits
 * only through addition order: they are compared as numbers.
 */
function expectSameScrape(ours: string[], theirs: string[]): void {
  expect(ours.length).toBe(theirs.length);
  for (let i = 0; i < ours.length; i++) {
    const [a, b] = [ours[i] as string, theirs[i] as string];
    if (a.includes('_sum{')) {
      expect(a.split(' ')[0]).toBe(b.split(' ')[0]);
      expect(Number(a.split(' ')[1])).toBeCloseTo(Number(b.split(' ')[1]), 9);
    } else expect(a).toBe(b);
  }
}

describe('fast path metrics', () => {
  it('export what prom-client exports for the same observations, scrape after scrape', async () => {
    const registry = new Registry();
    const metrics = registerMetrics(Fastify(), registry);
    const record = metrics.recorderFor('GET', '/v1/ip/:ip');
    const socket = metrics.fastPathCounter('socket');
    const request = metrics.fastPathCounter('request');
    const refRegistry = new Registry();
    const ref = reference(refRegistry);

    // Values on and around every bound, tiny and above the last bound; several statuses.
    const values = [
      0,
      1e-7,
      6,
      100,
      ...BUCKETS,
      ...BUCKETS.map((b) => b * (1 + 1e-9)),
      ...BUCKETS.map((b) => b / 2),
    ];
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let scrape = 0; scrape < 3; scrape++) {
      for (let i = 0; i < 2000; i++) {
        const status = [200, 200, 200, 404, 429, 503][Math.floor(rand() * 6)] as number;
        const seconds = durationOf(rand, values);
        record(status, seconds);
        const labels = { method: 'GET', route: '/v1/ip/:ip', status: String(status) };
        ref.requests.inc(labels);
        ref.duration.observe(labels, seconds);
        const transport = rand() < 0.8 ? 'socket' : 'request';
        (transport === 'socket' ? socket : request)();
        ref.fastPath.inc({ transport });
      }
      expectSameScrape(await series(registry), await series(refRegistry));
    }
  });

  it('adds the tallies to the route hook series of the same labels', async () => {
    const registry = new Registry();
    const app = Fastify();
    // The envelope plugin's start time, which the hook reads.
    app.decorateRequest('startedAt', 0n);
    app.addHook('onRequest', async (request) => {
      request.startedAt = process.hrtime.bigint();
    });
    const metrics = registerMetrics(app, registry);
    app.get('/v1/ip/:ip', async () => ({ ok: true }));
    for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: '/v1/ip/1.2.3.4' });
    const record = metrics.recorderFor('GET', '/v1/ip/:ip');
    for (let i = 0; i < 5; i++) record(200, 100);
    const lines = await series(registry);
    const value = (prefix: string) => Number(lines.find((l) => l.startsWith(prefix))?.split(' ')[1]);
    const labels = 'method="GET",route="/v1/ip/:ip",status="200"';
    expect(value(`netrep_http_requests_total{${labels}}`)).toBe(8);
    expect(value(`netrep_http_request_duration_seconds_count{${labels}}`)).toBe(8);
    expect(value(`netrep_http_request_duration_seconds_bucket{le="+Inf",${labels}}`)).toBe(8);
    expect(value(`netrep_http_request_duration_seconds_bucket{le="5",${labels}}`)).toBe(3);
    expect(value(`netrep_http_request_duration_seconds_sum{${labels}}`)).toBeGreaterThanOrEqual(500);
    // One series, listed once: the hook and the fast path share its tallies.
    for (const name of ['netrep_http_requests_total', 'netrep_http_request_duration_seconds_count'])
      expect(lines.filter((l) => l.startsWith(`${name}{${labels}}`))).toHaveLength(1);
    await app.close();
  });
});
