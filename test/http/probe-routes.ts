/**
 * Routes used only by the foundation tests to exercise each kind of access rule through the
 * real plugins (the product routes get the same checks from routes-contract.test.ts).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { HttpServices } from '../../src/http/context.ts';
import { envelope } from '../../src/http/schemas.ts';

export function probeRoutes(app: FastifyInstance, _services: HttpServices): void {
  const ok = { response: { 200: envelope(Type.Object({ ok: Type.Boolean() })) } };
  app.get(
    '/v1/public/probe',
    { config: { access: { kind: 'public', bucket: 'public' } }, schema: ok },
    async () => ({
      data: { ok: true },
    }),
  );
  app.get(
    '/v1/public/probe2',
    { config: { access: { kind: 'public', bucket: 'public' } }, schema: ok },
    async () => ({
      data: { ok: true },
    }),
  );
  app.get(
    '/v1/probe/ip',
    { config: { access: { kind: 'key', permission: 'ip:read' } }, schema: ok },
    async () => ({
      data: { ok: true },
    }),
  );
  app.post(
    '/v1/probe/batch',
    {
      config: { access: { kind: 'key', permission: 'ip:read' } },
      schema: {
        body: Type.Object({ ips: Type.Array(Type.String(), { minItems: 1, maxItems: 100 }) }),
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
        ...ok,
      },
    },
    async () => ({ data: { ok: true } }),
  );
  app.post(
    '/v1/probe/small',
    { bodyLimit: 1024, config: { access: { kind: 'public', bucket: 'reputation' } }, schema: ok },
    async () => ({ data: { ok: true } }),
  );
  app.get(
    '/v1/probe/feature',
    {
      config: { access: { kind: 'key', permission: 'email:read', feature: 'telemetry_ingest' } },
      schema: ok,
    },
    async () => ({ data: { ok: true } }),
  );
  app.get(
    '/v1/probe/auth-required',
    {
      config: { access: { kind: 'key', permission: 'telemetry:write', missingKeyCode: 'AUTH_REQUIRED' } },
      schema: ok,
    },
    async () => ({ data: { ok: true } }),
  );
  app.get('/v1/probe/boom', { config: { access: { kind: 'none' } }, schema: ok }, async () => {
    throw new Error('secret internal detail at /srv/netrep/src/x.ts:42');
  });
}
