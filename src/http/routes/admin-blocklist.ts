import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { DelistAnswer, DelistBody, ListBody, ListingAnswer, listingAnswer } from '../../blocklist/index.ts';
import { AppError } from '../../core/errors.ts';
import { normalizeIp } from '../../core/ip.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { delistAddressExample, listAddressExample } from '../examples/blocklist.ts';
import { envelope, errorResponses, IpParam } from '../schemas.ts';

const ListedAnswer = Type.Composite([
  Type.Object({ ip: Type.String({ description: 'The address, normalized' }) }),
  ListingAnswer,
]);

/** RFC 3339 with an explicit offset (or Z); anything Date.parse would guess at is refused. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

function parseExpiry(value: string | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  const ms = RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new AppError('INVALID_BODY', 'expires_at must be an RFC 3339 timestamp');
  return ms;
}

function actorOf(request: FastifyRequest): string {
  return request.principal ? `key:${request.principal.keyId}` : 'unknown';
}

export function adminBlocklistRoutes(app: HttpApp, services: HttpServices): void {
  const { blocklist } = services;

  app.post(
    '/v1/admin/blocklist/listings',
    {
      config: { access: { kind: 'key', permission: 'admin' } },
      schema: {
        tags: ['admin'],
        operationId: 'listAddress',
        examples: listAddressExample,
        summary: 'List an address, or re-list it with new details (type, reason, expiry).',
        body: ListBody,
        response: { 200: envelope(ListedAnswer), ...errorResponses('INVALID_IP') },
      },
    },
    async (request) => {
      const { body } = request;
      const listing = await blocklist.list({
        ip: body.ip,
        type: body.type,
        reason: body.reason,
        returnCode: body.return_code,
        expiresAt: parseExpiry(body.expires_at),
        actor: actorOf(request),
      });
      return { data: { ip: listing.ip, ...listingAnswer(listing) } };
    },
  );

  app.delete(
    '/v1/admin/blocklist/listings/:ip',
    {
      config: { access: { kind: 'key', permission: 'admin' } },
      // The body is optional: a DELETE without one is an empty object.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['admin'],
        operationId: 'delistAddress',
        examples: delistAddressExample,
        summary: 'Delist an address; 404 NOT_FOUND when it is not listed.',
        params: IpParam,
        body: DelistBody,
        response: { 200: envelope(DelistAnswer), ...errorResponses('INVALID_IP', 'NOT_FOUND') },
      },
    },
    async (request) => {
      const raw = request.params.ip;
      const ip = normalizeIp(raw);
      if (ip === null) throw new AppError('INVALID_IP', `invalid IP address: ${raw.slice(0, 64)}`);
      const removed = await blocklist.delist(ip, { reason: request.body.reason, actor: actorOf(request) });
      if (!removed) throw new AppError('NOT_FOUND', `${ip} is not listed`);
      return { data: { ip, listed: false as const } };
    },
  );
}
