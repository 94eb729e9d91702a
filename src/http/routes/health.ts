import { Type } from '@sinclair/typebox';
import { AppError } from '../../core/errors.ts';
import { DatasetStatusSchema } from '../../dataset/schemas.ts';
import type { HttpApp, HttpServices } from '../context.ts';
import { getHealthExample, getReadinessExample } from '../examples/health.ts';
import { envelope, errorResponses } from '../schemas.ts';

const Check = Type.Object({
  name: Type.String(),
  ok: Type.Boolean(),
  detail: Type.Optional(Type.String()),
  // The redis line while Redis is away: ok (the API serves), limits counted on this instance.
  degraded: Type.Optional(Type.Boolean()),
});

export function healthRoutes(app: HttpApp, services: HttpServices): void {
  app.get(
    '/healthz',
    {
      config: { access: { kind: 'none' } },
      schema: {
        tags: ['health'],
        operationId: 'getHealth',
        examples: getHealthExample,
        summary: 'Liveness: the process answers.',
        response: { 200: envelope(Type.Object({ status: Type.Literal('ok') })) },
      },
    },
    async () => ({ data: { status: 'ok' as const } }),
  );

  app.get(
    '/readyz',
    {
      config: { access: { kind: 'none' } },
      schema: {
        tags: ['health'],
        operationId: 'getReadiness',
        examples: getReadinessExample,
        summary:
          'Readiness: the store is migrated and answers, and the dataset is loaded; `dataset` says what the snapshot holds and how its updates went.',
        response: {
          200: envelope(
            Type.Object({
              status: Type.Literal('ready'),
              checks: Type.Array(Check),
              dataset: DatasetStatusSchema,
            }),
          ),
          ...errorResponses('NOT_READY'),
        },
      },
    },
    async () => {
      const checks = await services.readiness();
      const failing = checks.filter((c) => !c.ok);
      if (failing.length > 0) {
        throw new AppError(
          'NOT_READY',
          `not ready: ${failing.map((c) => `${c.name}${c.detail ? ` (${c.detail})` : ''}`).join(', ')}`,
        );
      }
      const version = services.datasetVersion();
      return {
        // Which source families the serving snapshot holds, their age, each source's last update.
        data: { status: 'ready' as const, checks, dataset: services.datasetStatus() },
        meta: version === null ? {} : { dataset_version: version },
      };
    },
  );
}
