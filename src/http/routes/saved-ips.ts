/** Saved IPs per owner (CONTRACT §11): the addresses whose lookup changes arrive as events. */
import { Type } from '@sinclair/typebox';
import { AppError } from '../../core/errors.ts';
import { SavedIpAnswer } from '../../webhooks/index.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { deleteSavedIpExample, listSavedIpsExample, saveIpExample } from '../examples/webhooks.ts';
import { envelope, errorResponses, IpParam } from '../schemas.ts';

const SaveIpBody = Type.Object(
  {
    ip: Type.String({ maxLength: 100, description: 'IPv4 or IPv6 address.' }),
    label: Type.Optional(
      Type.Union([Type.String({ maxLength: 1000 }), Type.Null()], { description: 'A note.' }),
    ),
  },
  { additionalProperties: false },
);

export function savedIpRoutes(app: HttpApp, services: HttpServices): void {
  const { webhooks } = services;

  app.post(
    '/v1/saved-ips',
    {
      config: { access: { kind: 'key', permission: 'ip:read' } },
      schema: {
        tags: ['webhooks'],
        operationId: 'saveIp',
        examples: saveIpExample,
        summary:
          'Watch an address (saving it again changes its label); its listing, delisting and threat changes arrive as saved_ip events. Capped per tier.',
        body: SaveIpBody,
        response: { 200: envelope(SavedIpAnswer), ...errorResponses('INVALID_IP') },
      },
    },
    async (request) => {
      const { ownerId, tier } = request.principal as NonNullable<typeof request.principal>;
      return { data: await webhooks.saveIp(ownerId, tier.name, request.body.ip, request.body.label) };
    },
  );

  app.get(
    '/v1/saved-ips',
    {
      config: { access: { kind: 'key', permission: 'ip:read' } },
      schema: {
        tags: ['webhooks'],
        operationId: 'listSavedIps',
        examples: listSavedIpsExample,
        summary: 'The addresses this account watches, oldest first.',
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Page size, 1-1000' }),
          offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Rows to skip' }),
        }),
        response: {
          200: envelope(
            Type.Object({
              saved_ips: Type.Array(SavedIpAnswer),
              total: Type.Integer(),
              limit: Type.Integer(),
              offset: Type.Integer(),
            }),
          ),
        },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const ownerId = request.principal?.ownerId as number;
      const { items, total } = await webhooks.savedIps(ownerId, limit, offset);
      return { data: { saved_ips: items, total, limit, offset } };
    },
  );

  app.delete(
    '/v1/saved-ips/:ip',
    {
      config: { access: { kind: 'key', permission: 'ip:read' } },
      schema: {
        tags: ['webhooks'],
        operationId: 'deleteSavedIp',
        examples: deleteSavedIpExample,
        summary: 'Stop watching an address; 404 NOT_FOUND when it was not saved.',
        params: IpParam,
        response: {
          200: envelope(Type.Object({ ip: Type.String(), saved: Type.Literal(false) })),
          ...errorResponses('INVALID_IP', 'NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const ownerId = request.principal?.ownerId as number;
      const ip = await webhooks.removeSavedIp(ownerId, request.params.ip);
      if (ip === null) throw new AppError('NOT_FOUND', `${request.params.ip.slice(0, 64)} is not saved`);
      return { data: { ip, saved: false as const } };
    },
  );
}
