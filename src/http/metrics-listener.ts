/**
 * NETREP_METRICS_LISTEN: where /metrics is served. Unset: on the API's own listener; `off`:
 * nowhere; `host:port`: on a listener of its own (scrapes stay off the public port), which
 * answers GET /metrics and 404 to anything else.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { type ListenAddress, parseHostPort } from '../core/listen.ts';

export type MetricsPlacement =
  | { kind: 'main' }
  | { kind: 'off' }
  | { kind: 'separate'; address: ListenAddress };

export function metricsPlacement(setting: string): MetricsPlacement {
  const text = setting.trim();
  if (text === '') return { kind: 'main' };
  if (text.toLowerCase() === 'off') return { kind: 'off' };
  return { kind: 'separate', address: parseHostPort(text, { what: 'NETREP_METRICS_LISTEN' }) };
}

export interface MetricsListener {
  /** `http://host:port` of the bound listener. */
  url: string;
  close(): Promise<void>;
}

export async function startMetricsListener(
  address: ListenAddress,
  registry: Registry,
): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) =>
        res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? '' : text),
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${host}:${bound.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
