import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApiKeyInfo, type Feature } from '../../accounts/index.ts';
import { AppError } from '../../core/errors.ts';
import type { HttpServices } from '../context.ts';
import { envelope, errorResponses } from '../schemas.ts';

export function adminKeyRoutes(app: FastifyInstance, services: HttpServices): void {
  app.post(
    '/v1/admin/keys/:key_id/features',
    {
      config: { access: { kind: 'key', permission: 'admin' } },
      schema: {
        tags: ['admin'],
        summary: 'Set administrator-controlled features of a key (CONTRACT §4).',
        params: Type.Object({ key_id: Type.String({ maxLength: 20 }) }),
        body: Type.Object({ telemetry_ingest: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: envelope(ApiKeyInfo), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { key_id } = request.params as { key_id: string };
      const id = /^\d{1,15}$/.test(key_id) ? Number(key_id) : Number.NaN;
      if (!Number.isSafeInteger(id) || id < 1)
        throw new AppError('INVALID_PARAMETER', 'key_id must be a positive integer');
      const body = request.body as { telemetry_ingest: boolean };
      const current = await services.accounts.keyInfo(id);
      if (!current) throw new AppError('NOT_FOUND', `no key ${id}`);
      const features = new Set(current.features as Feature[]);
      if (body.telemetry_ingest) features.add('telemetry_ingest');
      else features.delete('telemetry_ingest');
      const info = await services.accounts.setFeatures(id, [...features]);
      if (!info) throw new AppError('NOT_FOUND', `no key ${id}`);
      return { data: info };
    },
  );
}
