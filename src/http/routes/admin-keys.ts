/** Operator key administration (CONTRACT §4): features set by an administrator, revocation. */
import { Type } from '@sinclair/typebox';
import { ApiKeyInfo } from '../../accounts/index.ts';
import { AppError } from '../../core/errors.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { revokeKeyExample, setKeyFeaturesExample } from '../examples/admin.ts';
import { envelope, errorResponses } from '../schemas.ts';

const KeyIdParam = Type.Object({ key_id: Type.String({ maxLength: 20, description: 'Key id' }) });

function keyIdOf(text: string): number {
  const id = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id) || id < 1)
    throw new AppError('INVALID_PARAMETER', 'key_id must be a positive integer');
  return id;
}

export function adminKeyRoutes(app: HttpApp, services: HttpServices): void {
  const { accounts } = services;

  app.post(
    '/v1/admin/keys/:key_id/features',
    {
      config: { access: { kind: 'key', permission: 'admin' } },
      schema: {
        tags: ['admin'],
        operationId: 'setKeyFeatures',
        examples: setKeyFeaturesExample,
        summary: 'Set administrator-controlled features of a key (telemetry_ingest).',
        params: KeyIdParam,
        body: Type.Object({ telemetry_ingest: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: envelope(ApiKeyInfo), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request) => {
      const id = keyIdOf(request.params.key_id);
      const info = await accounts.setFeature(id, 'telemetry_ingest', request.body.telemetry_ingest);
      if (!info) throw new AppError('NOT_FOUND', `no key ${id}`);
      return { data: info };
    },
  );

  app.delete(
    '/v1/admin/keys/:key_id',
    {
      config: { access: { kind: 'key', permission: 'admin' } },
      schema: {
        tags: ['admin'],
        operationId: 'revokeKey',
        examples: revokeKeyExample,
        summary:
          'Revoke a key immediately and irreversibly; the answer carries its revoked_at. Revoking a revoked key changes nothing.',
        params: KeyIdParam,
        response: { 200: envelope(ApiKeyInfo), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request) => {
      const id = keyIdOf(request.params.key_id);
      await accounts.revokeKey(id);
      const info = await accounts.keyInfo(id);
      if (!info) throw new AppError('NOT_FOUND', `no key ${id}`);
      return { data: info };
    },
  );
}
