/**
 * Server-rendered HTML answers (dashboard and tool pages): not cached, no framing, and a policy
 * that allows no script at all (every page works as plain forms).
 */
import type { FastifyReply } from 'fastify';

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
