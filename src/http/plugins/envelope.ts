/**
 * Adds `meta.processing_time_ms` and `meta.request_id` to every `{data, meta}` payload, and
 * the X-Request-ID and X-RateLimit-* headers to every response. Routes return `{ data }`
 * (plus meta extras); the feed catalog opts out with `config.envelope: false`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rateLimitHeaderValues } from '../../limits/index.ts';

export function elapsedMs(request: FastifyRequest): number {
  // Errors raised by the router arrive before the onRequest hook set the start time.
  if (!request.startedAt) return 0;
  return Math.round(Number(process.hrtime.bigint() - request.startedAt) / 1e6);
}

export function rateLimitHeaders(request: FastifyRequest, reply: FastifyReply): void {
  if (request.limitState) reply.headers(rateLimitHeaderValues(request.limitState));
}

export function registerEnvelope(app: FastifyInstance): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('clientIp', '');
  app.decorateRequest('limitState', null);
  app.decorateRequest('startedAt', 0n);

  // Callback-style hooks: on the hottest routes an async hook's extra promise is measurable.
  app.addHook('onRequest', (request, reply, done) => {
    request.startedAt = process.hrtime.bigint();
    reply.header('x-request-id', request.id);
    done();
  });

  app.addHook('preSerialization', (request, reply, payload: unknown, done) => {
    if (request.routeOptions.config?.envelope === false) return done(null, payload);
    if (payload && typeof payload === 'object' && 'data' in payload) {
      const p = payload as { data: unknown; meta?: Record<string, unknown> };
      rateLimitHeaders(request, reply);
      return done(null, {
        data: p.data,
        meta: { ...p.meta, processing_time_ms: elapsedMs(request), request_id: request.id },
      });
    }
    done(null, payload);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader('x-ratelimit-limit')) rateLimitHeaders(request, reply);
    done(null, payload);
  });
}
