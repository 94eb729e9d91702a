/**
 * Builds the Fastify app: plugins (envelope, errors, access, metrics, docs) and the route files
 * of routes/index.ts. Domain logic stays in the domain modules; handlers are a few lines.
 */

import crypto from 'node:crypto';
import http from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import Fastify, { type FastifyServerOptions, LogController } from 'fastify';
import type { Registry } from 'prom-client';
import { AppError } from '../core/errors.ts';
import type { HttpApp, HttpServices, RouteModule } from './context.ts';
import { type FastFront, installFastFront } from './fast-front.ts';
import { createFastLookup, type FastHandler, type FastLookup, fastHandlerOf } from './fast-lookup.ts';
import { finiteParams } from './finite-params.ts';
import { DOCS_UI_OPTIONS, packageVersion, serverUrlOf, swaggerOptions } from './openapi.ts';
import { registerAccess } from './plugins/access.ts';
import { registerEnvelope } from './plugins/envelope.ts';
import { registerErrors, sendError } from './plugins/errors.ts';
import { createMetricsRegistry, registerMetrics } from './plugins/metrics.ts';
import { ROUTE_MODULES } from './routes/index.ts';
import { ErrorEnvelope } from './schemas.ts';

// ajv-formats is CommonJS: its default export arrives one level down under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

export interface BuildHttpOptions {
  services: HttpServices;
  logger?: FastifyServerOptions['logger'];
  /** Route modules registered after the API's own (tests' probe routes). */
  extraRoutes?: readonly RouteModule[];
  /** Serve /metrics on this app (false when it has its own listener or is off). */
  metricsRoute?: boolean;
  metricsRegistry?: Registry;
}

export async function buildHttp(options: BuildHttpOptions): Promise<HttpApp> {
  const { services } = options;
  const trusted = services.config.trustedProxies;
  // The keyed IP lookup's fast path (fast-lookup.ts) sees each request first, on the socket
  // (fast-front.ts) and on Node's request event for connections handed to Node; set once ready.
  let fastLookup: FastLookup | null = null;
  let fast: FastHandler | null = null;
  let front: FastFront | null = null;
  let countFront: () => void = () => undefined;
  const app = Fastify({
    serverFactory: (handler, factoryOptions) => {
      const opts = factoryOptions as {
        keepAliveTimeout?: number;
        requestTimeout?: number;
        connectionTimeout?: number;
        maxRequestsPerSocket?: number | null;
      };
      const server = http.createServer((req, res) => {
        if (fast === null || !fast(req, res)) handler(req, res);
      });
      // What Fastify sets on the server it would have made itself.
      server.keepAliveTimeout = opts.keepAliveTimeout ?? 72_000;
      server.requestTimeout = opts.requestTimeout ?? 0;
      server.setTimeout(opts.connectionTimeout ?? 0);
      if (opts.maxRequestsPerSocket) server.maxRequestsPerSocket = opts.maxRequestsPerSocket;
      front = installFastFront(server, () => fastLookup, {
        keepAliveTimeoutMs: server.keepAliveTimeout,
        counted: () => countFront(),
        onError: (err) => app.log.error({ err }, 'fast front: connection dropped'),
      });
      return server;
    },
    logger: options.logger ?? false,
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
    trustProxy: trusted.length > 0 ? trusted : false,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    // Per-request info logs cost more than the lookups themselves; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    // Router errors (a malformed URL, a path parameter over 1024 characters) get the envelope too.
    frameworkErrors: (error, request, reply) => {
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      sendError(
        request,
        reply,
        new AppError(
          'INVALID_PARAMETER',
          tooLong ? 'a path parameter is too long' : 'the request path is malformed',
        ),
      );
    },
    routerOptions: { ignoreTrailingSlash: false, caseSensitive: true, maxParamLength: 1024 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Query strings and path parameters arrive as text, so they are coerced to the schema's types;
  // a JSON body is taken as sent: `{"headers": 42}` or `{"ips": "1.2.3.4"}` is INVALID_BODY, not
  // silently turned into a string or a one-item list.
  const coercing = addFormats(new Ajv({ coerceTypes: 'array', removeAdditional: false, useDefaults: true }));
  const strict = addFormats(
    new Ajv({ coerceTypes: false, removeAdditional: false, useDefaults: true, verbose: true }),
  );
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? strict.compile(schema) : finiteParams(coercing.compile(schema)),
  );
  app.addSchema(ErrorEnvelope);
  await app.register(
    swagger,
    swaggerOptions({
      version: packageVersion(),
      serverUrl: () => serverUrlOf(services.config, app.server.address()),
    }),
  );
  await app.register(swaggerUi, DOCS_UI_OPTIONS);

  registerEnvelope(app);
  registerErrors(app);
  registerAccess(app, services);
  const registry = options.metricsRegistry ?? createMetricsRegistry();
  const metrics = registerMetrics(app, registry);

  app.get(
    '/openapi.json',
    { schema: { hide: true }, config: { access: { kind: 'none' }, envelope: false } },
    async () => app.swagger(),
  );
  if (options.metricsRoute !== false) {
    app.get(
      '/metrics',
      { schema: { hide: true }, config: { access: { kind: 'none' }, envelope: false } },
      async (_req, reply) => {
        reply.type(registry.contentType);
        return registry.metrics();
      },
    );
  }

  for (const routes of [...ROUTE_MODULES, ...(options.extraRoutes ?? [])]) routes(app, services);
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    front?.close();
    done();
  });
  await app.ready();
  if (app.hasRoute({ method: 'GET', url: '/v1/ip/:ip' })) {
    fastLookup = createFastLookup({
      accounts: services.accounts,
      limits: services.limits,
      runtime: services.intel,
      record: metrics.recorderFor('GET', '/v1/ip/:ip'),
      closing: () => closing,
      logError: (err, reqId) => app.log.error({ err, reqId }, 'unhandled error'),
    });
    fast = fastHandlerOf(fastLookup, metrics.fastPathCounter('request'));
    countFront = metrics.fastPathCounter('socket');
  }
  return app;
}
