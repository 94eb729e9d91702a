/**
 * Server-rendered HTML answers (dashboard and tool pages): not cached, no framing, and a policy
 * that allows no script at all (every page works as plain forms).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { isStoreUnavailable } from '../store/index.ts';

export const HTML_CSP =
  "default-src 'self'; style-src 'unsafe-inline'; script-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function sendHtml(reply: FastifyReply, body: string, status = 200): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('content-security-policy', HTML_CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8')
    .send(body);
}

/** What an HTML page says while the store is out of reach. */
export const STORE_OUTAGE_TEXT =
  'The service cannot reach its database right now. Try again in a few seconds.';

/**
 * In an HTML scope (dashboard), a store outage answers 503 with a page (`render`) and
 * Retry-After instead of the JSON envelope; any other error goes on to the app's handler.
 */
export function storeOutagePages(scope: FastifyInstance, render: (message: string) => string): void {
  scope.setErrorHandler((err, request, reply) => {
    if (!isStoreUnavailable(err)) throw err;
    request.log.warn({ err, reqId: request.id }, 'store unavailable');
    reply.header('retry-after', '5');
    return sendHtml(reply, render(STORE_OUTAGE_TEXT), 503);
  });
}
