/**
 * A body declared larger than the route takes (Content-Length over its bodyLimit) is read to its
 * end and dropped, then answered 413 PAYLOAD_TOO_LARGE on a connection that stays usable.
 * Fastify's own refusal answers at once and closes the connection, and the unread upload then
 * meets a reset: the client's write fails with EPIPE before it has read the 413 (issue 32
 * item 9). A body over DRAIN_LIMIT is not worth reading: it gets Fastify's answer, which closes
 * the connection. NETREP_HTTP_REQUEST_TIMEOUT_MS bounds the reading in time.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../core/errors.ts';

/** The largest declared body read through so that the client's upload ends cleanly. */
export const DRAIN_LIMIT = 64 * 1024 * 1024;

export function refuseDeclaredOversize(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const declared = request.headers['content-length'];
    if (declared === undefined) return payload;
    const length = Number(declared);
    if (!(length > request.routeOptions.bodyLimit) || length > DRAIN_LIMIT) return payload;
    await new Promise<void>((resolve) => {
      payload.once('end', resolve);
      payload.once('close', resolve);
      payload.once('error', () => resolve());
      payload.resume();
    });
    throw new AppError('PAYLOAD_TOO_LARGE');
  });
}
