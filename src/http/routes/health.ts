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
        description:
          'While a start builds or loads its first dataset (`netrep serve` listens at once), the 503 `NOT_READY` says what it does and when it expects to be ready in `meta.dataset_start` (`activity`, `doing`, `version`, `started_at`, `elapsed_seconds`, `expected_seconds`, `remaining_seconds`, `eta_basis`: the previous build or load in this data dir, or the input sizes), and `Retry-After` holds the seconds left.',
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
        // A start building or loading its first dataset: what it does and when (issue #36 item 1).
        const start = checks.find((c) => c.start)?.start;
        throw new AppError(
          'NOT_READY',
          `not ready: ${failing.map((c) => `${c.name}${c.detail ? ` (${c.detail})` : ''}`).join(', ')}`,
          start
            ? {
                meta: { dataset_start: start },
                headers: { 'retry-after': String(Math.min(300, Math.max(1, start.remaining_seconds))) },
              }
            : {},
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
