/**
 * Stage 4 of createApp: the HTTP app (http/server.ts) over the complete services, writing to the
 * logger of stage 1, and the metrics registry it serves (the workers stage adds its metrics).
 */
import type { Registry } from 'prom-client';
import type { HttpApp, HttpServices, RouteModule } from '../http/context.ts';
import { createMetricsRegistry } from '../http/plugins/metrics.ts';
import { buildHttp } from '../http/server.ts';
import type { LoggerStage } from './logger.ts';
import type { StartSettings } from './settings.ts';

export interface HttpStage {
  http: HttpApp;
  metricsRegistry: Registry;
}

export async function buildHttpStage(inputs: {
  services: HttpServices;
  logger: LoggerStage;
  settings: StartSettings;
  /** Route modules beyond the API's own (tests' probe routes). */
  routes?: readonly RouteModule[];
  /** false: the socket front reads 'data' events instead of its shared buffer (tests). */
  frontReadIntoBuffer?: boolean;
}): Promise<HttpStage> {
  const metricsRegistry = createMetricsRegistry();
  const http = await buildHttp({
    services: inputs.services,
    metricsRegistry,
    ...(inputs.logger.http ? { loggerInstance: inputs.logger.http } : { logger: false }),
    metricsRoute: inputs.settings.metricsAt.kind === 'main',
    ...(inputs.routes ? { extraRoutes: inputs.routes } : {}),
    ...(inputs.frontReadIntoBuffer === false ? { frontReadIntoBuffer: false } : {}),
  });
  return { http, metricsRegistry };
}
