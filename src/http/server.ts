/**
 * Builds the Fastify app: plugins (envelope, errors, access, metrics, docs) and the route files
 * of routes/index.ts. Domain logic stays in the domain modules; handlers are a few lines.
 */

import crypto from 'node:crypto';
import http from 'node:http';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { Registry } from 'prom-client';
import type { Config } from '../config.ts';
import { createConnectionCap } from '../core/connection-cap.ts';
import { AppError } from '../core/errors.ts';
import { registerApiDocsRoutes } from './api-docs-routes.ts';
import { answerNodeRejections, clientErrorHandlerOf, type Rejected, refuseBadHost } from './client-errors.ts';
import { limitConnections } from './connection-limit.ts';
import type { HttpApp, HttpServices, RouteModule } from './context.ts';
import { refuseDeclaredOversize } from './declared-body.ts';
import { type FastFront, frontEnabled, installFastFront } from './fast-front.ts';
import { createFastLookup, type FastHandler, type FastLookup, fastHandlerOf } from './fast-lookup.ts';
import { finiteParams } from './finite-params.ts';
import { packageVersion, serverUrlOf, swaggerOptions } from './openapi.ts';
import { registerAccess } from './plugins/access.ts';
import { registerEnvelope } from './plugins/envelope.ts';
import { registerErrors, sendError } from './plugins/errors.ts';
import { createMetricsRegistry, registerMetrics } from './plugins/metrics.ts';
import { ROUTE_MODULES } from './routes/index.ts';
import { ErrorEnvelope } from './schemas.ts';
import { buildSerializer } from './serializer.ts';

// ajv-formats is CommonJS: its default export arrives one level down under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

export interface BuildHttpOptions {
  services: HttpServices;
  logger?: FastifyServerOptions['logger'];
  /**
   * A logger made before the app (app.ts makes one first, so services log while they are built):
   * Fastify wraps it in a child with its request serializers. Instead of `logger`.
   */
  loggerInstance?: FastifyBaseLogger;
  /** Route modules registered after the API's own (tests' probe routes). */
  extraRoutes?: readonly RouteModule[];
  /** Serve /metrics on this app (false when it has its own listener or is off). */
  metricsRoute?: boolean;
  metricsRegistry?: Registry;
  /** The socket front's read mode (fast-front.ts; tests run both): false reads 'data' events. */
  frontReadIntoBuffer?: boolean;
}

/**
 * Node's HTTP timeouts from the configuration: a head within NETREP_HTTP_HEADERS_TIMEOUT_MS, the
 * whole request (a body included) within NETREP_HTTP_REQUEST_TIMEOUT_MS, both checked every
 * quarter of the shorter one (at most every 5 s), so a stalled request is cut within 1.25 times
 * its limit; idle keep-alive connections close after NETREP_HTTP_KEEP_ALIVE_TIMEOUT_MS.
 */
export function httpTimeoutsOf(
  config: Pick<Config, 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs' | 'httpKeepAliveTimeoutMs'>,
): http.ServerOptions {
  const requestTimeout = Math.max(0, config.httpRequestTimeoutMs);
  // Node refuses a head limit above the request limit.
  const headersTimeout = Math.max(
    0,
    requestTimeout > 0 ? Math.min(config.httpHeadersTimeoutMs, requestTimeout) : config.httpHeadersTimeoutMs,
  );
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((t) => t > 0), 20_000);
  return {
    requestTimeout,
    headersTimeout,
    keepAliveTimeout: Math.max(0, config.httpKeepAliveTimeoutMs),
    connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(shortest / 4))),
  };
}

/** A router error (a malformed URL, a path parameter over 1024 characters): INVALID_PARAMETER. */
function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  sendError(
    request,
    reply,
    new AppError(
      'INVALID_PARAMETER',
      tooLong ? 'a path parameter is too long' : 'the request path is malformed',
    ),
  );
}

/**
 * Query strings and path parameters arrive as text, so they are coerced to the schema's types;
 * a JSON body is taken as sent: `{"headers": 42}` or `{"ips": "1.2.3.4"}` is INVALID_BODY, not
 * silently turned into a string or a one-item list.
 */
function setValidators(app: HttpApp): void {
  const coercing = addFormats(new Ajv({ coerceTypes: 'array', removeAdditional: false, useDefaults: true }));
  const strict = addFormats(
    new Ajv({ coerceTypes: false, removeAdditional: false, useDefaults: true, verbose: true }),
  );
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? strict.compile(schema) : finiteParams(coercing.compile(schema)),
  );
}

function registerMetricsRoute(app: HttpApp, registry: Registry): void {
  app.get(
    '/metrics',
    { schema: { hide: true }, config: { access: { kind: 'none' }, envelope: false } },
    async (_req, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    },
  );
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
  // Answers given outside the routes (Node's parser and timers, the connection cap), by code.
  let countRejected: Rejected = () => undefined;
  const rejected: Rejected = (code) => countRejected(code);
  const app = Fastify({
    serverFactory: (handler, factoryOptions) => {
      const opts = factoryOptions as { connectionTimeout?: number; maxRequestsPerSocket?: number | null };
      const limits = httpTimeoutsOf(services.config);
      const server = http.createServer({ ...limits, requireHostHeader: false }, (req, res) => {
        if (refuseBadHost(req, res, rejected)) return;
        if (fast === null || !fast(req, res)) handler(req, res);
      });
      server.setTimeout(opts.connectionTimeout ?? 0);
      answerNodeRejections(server, rejected);
      if (opts.maxRequestsPerSocket) server.maxRequestsPerSocket = opts.maxRequestsPerSocket;
      // The socket front only on the Node lines it is tested on (NETREP_HTTP_FRONT, fast-front.ts).
      if (frontEnabled(services.config.httpFront)) {
        front = installFastFront(server, () => fastLookup, {
          keepAliveTimeoutMs: server.keepAliveTimeout,
          firstRequestTimeoutMs: server.headersTimeout,
          counted: () => countFront(),
          onError: (err) => app.log.error({ err }, 'fast front: connection dropped'),
          ...(options.frontReadIntoBuffer === false ? { readIntoBuffer: false } : {}),
        });
      }
      const perClient = services.config.httpMaxConnectionsPerClient;
      limitConnections(server, createConnectionCap({ max: perClient, exempt: trusted }), perClient, rejected);
      return server;
    },
    ...(options.loggerInstance
      ? { loggerInstance: options.loggerInstance }
      : { logger: options.logger ?? false }),
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
    trustProxy: trusted.length > 0 ? trusted : false,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    // Node's own rejections (a malformed head, a head over 16 KiB, a timeout) get the envelope too.
    clientErrorHandler: clientErrorHandlerOf(rejected),
    // Per-request info logs cost more than the lookups themselves; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    // Router errors (a malformed URL, a path parameter over 1024 characters) get the envelope too.
    frameworkErrors: answerFrameworkError,
    routerOptions: { ignoreTrailingSlash: false, caseSensitive: true, maxParamLength: 1024 },
    // Response unions written without a validation per value (serializer.ts).
    schemaController: { compilersFactory: { buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  setValidators(app);
  app.addSchema(ErrorEnvelope);
  await app.register(
    swagger,
    swaggerOptions({
      version: packageVersion(),
      serverUrl: () => serverUrlOf(services.config, app.server.address()),
    }),
  );

  registerEnvelope(app);
  registerErrors(app);
  registerAccess(app, services);
  refuseDeclaredOversize(app);
  const registry = options.metricsRegistry ?? createMetricsRegistry();
  const metrics = registerMetrics(app, registry);
  countRejected = metrics.rejectedCounter();

  registerApiDocsRoutes(app);
  if (options.metricsRoute !== false) registerMetricsRoute(app, registry);

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
