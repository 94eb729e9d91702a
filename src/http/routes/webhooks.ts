/**
 * Webhooks per owner (CONTRACT §11): create (the secret shown once), list, delete, the delivery
 * log and a test ping. Another owner's hook is 404 NOT_FOUND on every route.
 */
import { Type } from '@sinclair/typebox';
import { AppError } from '../../core/errors.ts';
import { CreatedWebhookAnswer, DeliveryAttemptAnswer, WebhookAnswer } from '../../webhooks/index.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import {
  createWebhookExample,
  deleteWebhookExample,
  listDeliveriesExample,
  listWebhooksExample,
  testWebhookExample,
} from '../examples/webhooks.ts';
import { envelope, errorResponses } from '../schemas.ts';

const IdParam = Type.Object({ id: Type.String({ maxLength: 20, description: 'Webhook id' }) });

function idOf(text: string): number {
  const id = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id) || id < 1)
    throw new AppError('INVALID_PARAMETER', 'id must be a positive integer');
  return id;
}

const notFound = (id: number) => new AppError('NOT_FOUND', `no webhook ${id}`);

/** Create, list and delete webhooks. */
function hookRoutes(app: HttpApp, services: HttpServices): void {
  const { webhooks } = services;
  const access = { kind: 'key', permission: 'ip:read' } as const;

  app.post(
    '/v1/webhooks',
    {
      config: { access },
      schema: {
        tags: ['webhooks'],
        operationId: 'createWebhook',
        examples: createWebhookExample,
        summary:
          'Register a URL for signed event deliveries; the answer carries the signing secret, shown this once (a random one when none is given). Loopback and private targets are refused.',
        body: Type.Object(
          {
            url: Type.String({ maxLength: 2048, description: 'http or https URL.' }),
            secret: Type.Optional(
              Type.String({ maxLength: 256, description: '16-256 printable characters.' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: envelope(CreatedWebhookAnswer) },
      },
    },
    async (request) => {
      const ownerId = request.principal?.ownerId as number;
      return { data: await webhooks.createHook(ownerId, request.body.url, request.body.secret) };
    },
  );

  app.get(
    '/v1/webhooks',
    {
      config: { access },
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhooks',
        examples: listWebhooksExample,
        summary: 'This account’s webhooks (never their secrets).',
        response: { 200: envelope(Type.Object({ webhooks: Type.Array(WebhookAnswer) })) },
      },
    },
    async (request) => ({ data: { webhooks: await webhooks.hooks(request.principal?.ownerId as number) } }),
  );

  app.delete(
    '/v1/webhooks/:id',
    {
      config: { access },
      schema: {
        tags: ['webhooks'],
        operationId: 'deleteWebhook',
        examples: deleteWebhookExample,
        summary: 'Delete a webhook with its pending deliveries and log.',
        params: IdParam,
        response: {
          200: envelope(Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) })),
          ...errorResponses('NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const id = idOf(request.params.id);
      if (!(await webhooks.removeHook(request.principal?.ownerId as number, id))) throw notFound(id);
      return { data: { id, deleted: true as const } };
    },
  );
}

/** A webhook's deliveries and the test ping. */
function deliveryRoutes(app: HttpApp, services: HttpServices): void {
  const { webhooks } = services;
  const access = { kind: 'key', permission: 'ip:read' } as const;

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: { access },
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhookDeliveries',
        examples: listDeliveriesExample,
        summary: 'Delivery attempts of a webhook, newest first: event id, status, response code, error.',
        params: IdParam,
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Page size, 1-500' }),
          offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'Rows to skip' }),
        }),
        response: {
          200: envelope(
            Type.Object({
              deliveries: Type.Array(DeliveryAttemptAnswer),
              limit: Type.Integer(),
              offset: Type.Integer(),
            }),
          ),
          ...errorResponses('NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const id = idOf(request.params.id);
      const { limit, offset } = request.query;
      const deliveries = await webhooks.deliveries(request.principal?.ownerId as number, id, limit, offset);
      if (deliveries === null) throw notFound(id);
      return { data: { deliveries, limit, offset } };
    },
  );

  app.post(
    '/v1/webhooks/:id/test',
    {
      config: { access },
      // No body is needed: a POST without one is an empty object.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['webhooks'],
        operationId: 'testWebhook',
        examples: testWebhookExample,
        summary: 'Queue a `ping` event to this webhook; its attempts appear in the delivery log.',
        params: IdParam,
        body: Type.Object({}, { additionalProperties: false }),
        response: {
          200: envelope(Type.Object({ event_id: Type.String() })),
          ...errorResponses('NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const id = idOf(request.params.id);
      const queued = await webhooks.ping(request.principal?.ownerId as number, id);
      if (queued === null) throw notFound(id);
      return { data: queued };
    },
  );
}

export function webhookRoutes(app: HttpApp, services: HttpServices): void {
  hookRoutes(app, services);
  deliveryRoutes(app, services);
}
