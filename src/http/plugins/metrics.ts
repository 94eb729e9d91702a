/** Prometheus metrics: request counts and latency histograms by route and status. */
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'netrep_' });
  return registry;
}

/** Records one response of a fixed method and route (the lookup fast path, outside Fastify). */
export type RouteRecorder = (status: number, seconds: number) => void;

export function registerMetrics(
  app: FastifyInstance,
  registry: Registry,
): {
  recorderFor(method: string, route: string): RouteRecorder;
  /** Counts answers of the lookup fast path by how they arrived (`socket` or `request`). */
  fastPathCounter(transport: 'socket' | 'request'): () => void;
  /** Counts answers given outside the routes (Node's parser and timers, the connection cap). */
  rejectedCounter(): (code: string) => void;
} {
  const fastPath = new Counter({
    name: 'netrep_http_fast_path_total',
    help: 'Keyed IP lookups answered by the fast path: on the socket front or on the request event',
    labelNames: ['transport'] as const,
    registers: [registry],
  });
  const rejected = new Counter({
    name: 'netrep_http_rejected_total',
    help: 'Requests and connections answered before routing (malformed HTTP, timeouts, over the per-client connection cap), by error code',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const requests = new Counter({
    name: 'netrep_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'netrep_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, Number(process.hrtime.bigint() - request.startedAt) / 1e9);
    done();
  });
  return {
    rejectedCounter() {
      return (code) => rejected.labels({ code }).inc();
    },
    fastPathCounter(transport) {
      const child = fastPath.labels({ transport });
      return () => child.inc();
    },
    // The same series as the hook's, with the label children resolved once per status.
    recorderFor(method, route) {
      const children = new Map<
        number,
        { count: Counter.Internal; time: Histogram.Internal<'method' | 'route' | 'status'> }
      >();
      return (status, seconds) => {
        let c = children.get(status);
        if (!c) {
          const labels = { method, route, status: String(status) };
          c = { count: requests.labels(labels), time: duration.labels(labels) };
          children.set(status, c);
        }
        c.count.inc();
        c.time.observe(seconds);
      };
    },
  };
}
