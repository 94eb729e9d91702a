/** Prometheus metrics: request counts and latency histograms by route and status. */
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'netrep_' });
  // `promtool check metrics`: a gauge must not end in _total. These three are the sums of the
  // gauges of the same name without it (by type), so nothing is lost.
  for (const name of ['handles', 'requests', 'resources'])
    registry.removeSingleMetric(`netrep_nodejs_active_${name}_total`);
  return registry;
}

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

type RouteLabels = { method: string; route: string; status: string };

/** One series' answers, counted outside prom-client. */
interface Tally {
  labels: RouteLabels;
  count: number;
  /** How much of `count` the requests counter has been given already. */
  countedTotal: number;
  sum: number;
  /** Observations per bucket (not cumulative), BUCKETS' order; above the last: only in count. */
  buckets: Float64Array;
}

/** One exported sample, as prom-client's histogram lists them before the registry formats them. */
interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/**
 * A histogram whose series are the tallies (prom-client's own observe is never called): each
 * listed as prom-client lists one (buckets, +Inf, sum, count). Registry output and get() both
 * read getForPromString.
 */
// prom-client's own export (not in its type declarations): the registry and get() call it.
const baseExport = (Histogram.prototype as unknown as Record<string, unknown>).getForPromString;
if (typeof baseExport !== 'function') throw new Error('prom-client: Histogram.getForPromString is gone');

class TalliedHistogram extends Histogram<'method' | 'route' | 'status'> {
  private readonly metricName: string;

  constructor(
    private readonly tallies: Tally[],
    config: ConstructorParameters<typeof Histogram<'method' | 'route' | 'status'>>[0],
  ) {
    super(config);
    this.metricName = config.name;
  }

  async getForPromString(): Promise<{ values: ExportedValue[] }> {
    const data = await (baseExport as (this: Histogram) => Promise<{ values: ExportedValue[] }>).call(this);
    const bucketName = `${this.metricName}_bucket`;
    for (const t of this.tallies) {
      if (t.count === 0) continue;
      let cumulative = 0;
      const added = BUCKETS.map((le, i) => {
        cumulative += t.buckets[i] as number;
        return { le, value: cumulative };
      });
      for (const b of added)
        data.values.push({
          labels: { le: b.le },
          sharedLabels: t.labels,
          value: b.value,
          metricName: bucketName,
        });
      data.values.push(
        { labels: { le: '+Inf' }, sharedLabels: t.labels, value: t.count, metricName: bucketName },
        { labels: {}, sharedLabels: t.labels, value: t.sum, metricName: `${this.metricName}_sum` },
        { labels: {}, sharedLabels: t.labels, value: t.count, metricName: `${this.metricName}_count` },
      );
    }
    return data;
  }
}

/** Records one response of a fixed method and route (the route hook and the lookup fast path). */
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
  const fastPathTallies: (() => void)[] = [];
  const fastPath = new Counter({
    name: 'netrep_http_fast_path_total',
    help: 'Keyed IP lookups answered by the fast path: on the socket front or on the request event',
    labelNames: ['transport'] as const,
    registers: [registry],
    collect() {
      for (const add of fastPathTallies) add();
    },
  });
  const rejected = new Counter({
    name: 'netrep_http_rejected_total',
    help: 'Requests and connections answered before routing (malformed HTTP, timeouts, over the per-client connection cap), by error code',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  // Answers are counted in plain numbers (prom-client hashes and validates the labels on every
  // inc and observe, even on a child from labels(), about a microsecond each); a scrape adds
  // what was counted since the last one to the counter, and the histogram's export lists the
  // tallies' buckets.
  const tallies: Tally[] = [];
  new Counter({
    name: 'netrep_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
    collect() {
      for (const t of tallies) {
        if (t.count === t.countedTotal) continue;
        this.inc(t.labels, t.count - t.countedTotal);
        t.countedTotal = t.count;
      }
    },
  });
  new TalliedHistogram(tallies, {
    name: 'netrep_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  /** Answers of one method and route, counted in a tally per status. */
  const newRecorder = (method: string, route: string): RouteRecorder => {
    const byStatus = new Map<number, Tally>();
    return (status, seconds) => {
      let t = byStatus.get(status);
      if (!t) {
        t = {
          labels: { method, route, status: String(status) },
          count: 0,
          countedTotal: 0,
          sum: 0,
          buckets: new Float64Array(BUCKETS.length),
        };
        byStatus.set(status, t);
        tallies.push(t);
      }
      t.count++;
      t.sum += seconds;
      // Per bucket (not cumulative): the first bound at or above the value, as prom-client's.
      for (let i = 0; i < BUCKETS.length; i++) {
        if (seconds <= (BUCKETS[i] as number)) {
          (t.buckets[i] as number)++;
          break;
        }
      }
    };
  };
  // One recorder per route and method (the hook's and the lookup fast path's share it, so a
  // series is listed once), found by two map reads of strings Fastify and Node's parser keep.
  const recorders = new Map<string, Map<string, RouteRecorder>>();
  const recorderFor = (method: string, route: string): RouteRecorder => {
    let byMethod = recorders.get(route);
    if (!byMethod) {
      byMethod = new Map();
      recorders.set(route, byMethod);
    }
    let record = byMethod.get(method);
    if (!record) {
      record = newRecorder(method, route);
      byMethod.set(method, record);
    }
    return record;
  };
  app.addHook('onResponse', (request, reply, done) => {
    recorderFor(request.method, request.routeOptions.url ?? 'unmatched')(
      reply.statusCode,
      Number(process.hrtime.bigint() - request.startedAt) / 1e9,
    );
    done();
  });
  return {
    rejectedCounter() {
      return (code) => rejected.labels({ code }).inc();
    },
    fastPathCounter(transport) {
      const labels = { transport };
      let count = 0;
      let counted = 0;
      fastPathTallies.push(() => {
        if (count !== counted) fastPath.inc(labels, count - counted);
        counted = count;
      });
      return () => {
        count++;
      };
    },
    recorderFor,
  };
}
